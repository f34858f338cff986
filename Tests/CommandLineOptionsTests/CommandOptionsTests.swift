import CommandLineOptions
import Testing

/// A command declaring one property of every kind the typed layer offers.
struct SampleOptions: CommandOptions {
    enum Format: String, CaseIterable, Sendable { case xml, binary, json, openstep }
    enum Field: String, CaseIterable, Sendable { case build, marketing }

    /// Options several commands share.
    struct Shared: CommandOptions {
        var verbose = false
        var tags: [String] = []
        static var declarations: [Declaration<Self>] {
            [
                .flag(\.verbose, "-v", "--verbose", help: "Say more."),
                .repeated(\.tags, "--tag", name: "TAG", help: "A tag.", defaultDescription: "none")
            ]
        }
    }

    var field = Field.build
    var app = ""
    var part: String?
    var output = ""
    var title = "Builds"
    var notes: String?
    var level = 6
    var format = Format.xml
    var convert: Format?
    var quiet = false
    var udids: [String] = []
    var set: [KeyValue] = []
    var shared = Shared()

    static var declarations: [Declaration<Self>] {
        [
            .argument(\.field, "FIELD", noun: "field", help: "What to change."),
            .argument(\.app, "APP", help: "The app.", kind: .path),
            .argument(\.part, "PART", help: "A part."),
            .option(\.output, "-o", "--output", name: "OUT", kind: .path, help: "Where to write.", required: true),
            .option(\.title, "--title", name: "TEXT", help: "The title."),
            .option(\.notes, "--notes", name: "FILE", kind: .path, help: "Notes.", defaultDescription: "none"),
            .integer(\.level, "--level", name: "0-9", range: 0...9, help: "Deflate level; 0 stores."),
            .choice(\.format, "--format", name: "FORMAT", noun: "format", choices: [.xml, .binary, .json], help: "How to print."),
            .choice(\.convert, "--to", name: "FORMAT", noun: "format", help: "The format.", defaultDescription: "the input's"),
            .flag(\.quiet, "-q", "--quiet", help: "Print nothing."),
            .repeated(\.udids, "--udid", name: "UDID", help: "A device."),
            .keyValues(\.set, "--set", name: "KEYPATH=VALUE", help: "Override a value."),
            .group(\.shared)
        ]
    }
}

/// The same command declared by hand, the way commands were declared before the typed layer.
let handWrittenSample = CommandSpec(
    name: "sample", abstract: "A sample.",
    arguments: [
        ArgumentSpec(name: "FIELD", help: "What to change.", kind: .choice(["build", "marketing"], noun: "field")),
        ArgumentSpec(name: "APP", help: "The app.", kind: .path),
        ArgumentSpec(name: "PART", help: "A part.", isOptional: true)
    ],
    options: [
        .value("-o", "--output", name: "OUT", kind: .path, help: "Where to write.", required: true),
        .value("--title", name: "TEXT", help: "The title.", default: "Builds"),
        .value("--notes", name: "FILE", kind: .path, help: "Notes.", defaultDescription: "none"),
        .value("--level", name: "0-9", kind: .integer(0...9), help: "Deflate level; 0 stores.", default: "6"),
        .value("--format", name: "FORMAT", kind: .choice(["xml", "binary", "json"], noun: "format"), help: "How to print.", default: "xml"),
        .value(
            "--to", name: "FORMAT", kind: .choice(["xml", "binary", "json", "openstep"], noun: "format"), help: "The format.",
            defaultDescription: "the input's"),
        .flag("-q", "--quiet", help: "Print nothing."),
        .value("--udid", name: "UDID", help: "A device.", repeatable: true),
        .value("--set", name: "KEYPATH=VALUE", kind: .keyValue, help: "Override a value.", repeatable: true),
        .flag("-v", "--verbose", help: "Say more."),
        .value("--tag", name: "TAG", help: "A tag.", defaultDescription: "none", repeatable: true)
    ],
    run: { _ in 0 })

/// A command whose last argument takes the rest.
struct LintOptions: CommandOptions {
    var files: [String] = []
    static var declarations: [Declaration<Self>] { [.arguments(\.files, "FILE", help: "Files.", isOptional: true)] }
}

@Suite struct CommandOptionsTests {
    static let sample = CommandSpec(name: "sample", abstract: "A sample.", options: SampleOptions.self) { options, _ in
        Int32(options.level)
    }
    static let root = CommandSpec(
        name: "tool", abstract: "A tool.",
        subcommands: [sample, CommandSpec(name: "lint", abstract: "Lint.", options: LintOptions.self) { _, _ in 0 }])

    static func read<Options: CommandOptions>(_ arguments: [String], as type: Options.Type = SampleOptions.self) throws -> Options {
        guard case .run(_, let parsed) = try CommandLineParser(root: root).parse(arguments) else {
            throw UsageError(message: "not a run", commandPath: [])
        }
        return try Options.read(from: parsed)
    }

    @Test func valuesOfEveryKindAreReadAsTheirTypes() throws {
        let options = try Self.read([
            "sample", "marketing", "A.app", "minor", "-o", "A.ipa", "--title", "Nightly", "--notes", "N.txt", "--level", "9",
            "--format", "json", "--to=openstep", "-q", "--set", "A:B=1", "--set", "C=x=y", "-v"
        ])
        #expect(options.field == .marketing)
        #expect(options.app == "A.app")
        #expect(options.part == "minor")
        #expect(options.output == "A.ipa")
        #expect(options.title == "Nightly")
        #expect(options.notes == "N.txt")
        #expect(options.level == 9)
        #expect(options.format == .json)
        #expect(options.convert == .openstep)
        #expect(options.quiet)
        #expect(options.set == [KeyValue(name: "A:B", value: "1"), KeyValue(name: "C", value: "x=y")])
        #expect(options.shared.verbose)
    }

    @Test func anOptionNotGivenKeepsThePropertysInitialValue() throws {
        let options = try Self.read(["sample", "build", "A.app", "-o", "A.ipa"])
        #expect(options.part == nil)
        #expect(options.title == "Builds")
        #expect(options.notes == nil)
        #expect(options.level == 6)
        #expect(options.format == .xml)
        #expect(options.convert == nil)
        #expect(!options.quiet)
        #expect(options.udids.isEmpty && options.set.isEmpty)
        #expect(!options.shared.verbose && options.shared.tags.isEmpty)
    }

    @Test func aRepeatableOptionKeepsEveryValueInOrder() throws {
        let options = try Self.read([
            "sample", "build", "A.app", "-o", "A.ipa", "--udid", "B", "--tag", "t1", "--udid", "A", "--tag", "t2"
        ])
        #expect(options.udids == ["B", "A"])
        #expect(options.shared.tags == ["t1", "t2"])
    }

    @Test func theLastArgumentTakesTheRest() throws {
        #expect(try Self.read(["lint", "a", "b", "c"], as: LintOptions.self).files == ["a", "b", "c"])
        #expect(try Self.read(["lint"], as: LintOptions.self).files == [])
    }

    @Test func aMissingRequiredOptionIsAUsageErrorNamingIt() {
        #expect(throws: UsageError(message: "missing -o OUT", commandPath: ["tool", "sample"])) {
            try CommandLineParser(root: Self.root).parse(["sample", "build", "A.app"])
        }
    }

    @Test func aValueOutsideTheDeclaredChoicesIsAUsageError() {
        #expect(throws: UsageError(message: "unknown format 'openstep'; use xml, binary or json", commandPath: ["tool", "sample"])) {
            try CommandLineParser(root: Self.root).parse(["sample", "build", "A.app", "-o", "A.ipa", "--format", "openstep"])
        }
    }

    @Test func runGetsTheTypedValues() throws {
        guard
            case .run(let command, let parsed) = try CommandLineParser(root: Self.root).parse([
                "sample", "build", "A", "-o", "B", "--level", "3"
            ])
        else {
            Issue.record("not a run")
            return
        }
        #expect(try command.run?(parsed) == 3)
    }

    @Test func runningAGroupIsAUsageErrorAsTheParserReportsIt() {
        #expect(throws: UsageError(message: "'tool' needs a subcommand", commandPath: ["tool"])) {
            try Self.root.run(ParsedCommand(path: ["tool"]))
        }
        #expect(throws: UsageError(message: "'tool' needs a subcommand", commandPath: ["tool"])) {
            try CommandLineParser(root: Self.root).parse([])
        }
    }

    @Test func helpAndUsageAreTheSameAsForTheCommandDeclaredByHand() {
        let path = ["tool", "sample"]
        #expect(HelpFormatter.help(Self.sample, path: path) == HelpFormatter.help(handWrittenSample, path: path))
        #expect(HelpFormatter.usage(Self.sample, path: path) == HelpFormatter.usage(handWrittenSample, path: path))
        #expect(HelpFormatter.usage(Self.sample, path: path) == "tool sample FIELD APP [PART] -o OUT [options]")
    }
}
