import Testing

@testable import CommandLineOptions

/// A small command tree declared the way the tool declares its own.
enum SampleCommands {
    static let package = CommandSpec(
        name: "package", abstract: "Package an app.",
        arguments: [ArgumentSpec(name: "APP", help: "The app.")],
        options: [
            .value("-o", "--output", name: "OUT.ipa", kind: .path, help: "Where to write the ipa.", required: true),
            .value("--level", name: "0-9", kind: .integer(0...9), help: "Deflate level; 0 stores.", default: "6"),
            .value(
                "--to", name: "FORMAT", kind: .choice(["xml", "binary", "json"], noun: "format"), help: "The format.",
                defaultDescription: "the input's"),
            .value("--set", name: "KEYPATH=VALUE", kind: .keyValue, help: "Override a value.", repeatable: true),
            .value(
                "--at", name: "DATE", kind: .checked(expectation: "a date like 2026-12-31", accepts: { $0.count == 10 }),
                help: "The date."),
            .flag("-q", "--quiet", help: "Print nothing.")
        ],
        run: { _ in 0 })
    static let set = CommandSpec(
        name: "set", abstract: "Set a value.",
        arguments: [ArgumentSpec(name: "KEY", help: "The key."), ArgumentSpec(name: "VALUE", help: "The value.", isOptional: true)],
        run: { _ in 0 })
    static let lint = CommandSpec(
        name: "lint", abstract: "Check files.",
        arguments: [
            ArgumentSpec(name: "FIELD", help: "What to check.", kind: .choice(["build", "marketing"], noun: "field")),
            ArgumentSpec(name: "FILE", help: "Files.", isVariadic: true)
        ],
        run: { _ in 0 })
    static let root = CommandSpec(name: "tool", abstract: "A tool.", subcommands: [package, set, lint])

    static func parse(_ arguments: [String]) throws -> ParsedCommand {
        guard case .run(_, let parsed) = try CommandLineParser(root: root).parse(arguments) else {
            throw UsageError(message: "not a run", commandPath: [])
        }
        return parsed
    }

    static func usageError(_ arguments: [String]) -> UsageError? {
        do { _ = try CommandLineParser(root: root).parse(arguments) } catch let error as UsageError { return error } catch {}
        return nil
    }
}

@Suite struct ParserTests {
    @Test func valuesAreReadAsDeclared() throws {
        let parsed = try SampleCommands.parse([
            "package", "A.app", "-o", "A.ipa", "--level", "9", "--to=json", "-q",
            "--set", "A:B=1", "--set", "C=x=y"
        ])
        #expect(parsed.path == ["tool", "package"])
        #expect(parsed.positionals == ["A.app"])
        #expect(parsed.required("output") == "A.ipa")
        #expect(parsed.integer("level") == 9)
        #expect(parsed.value("to") == "json")
        #expect(parsed.flag("quiet"))
        #expect(parsed.pairs("set").map { "\($0.name)|\($0.value)" } == ["A:B|1", "C|x=y"])
    }

    @Test func aDefaultIsTheValueWhenTheOptionIsNotGiven() throws {
        let parsed = try SampleCommands.parse(["package", "A.app", "-o", "A.ipa"])
        #expect(parsed.integer("level") == 6)
        #expect(!parsed.isGiven("level"))
        #expect(parsed.value("to") == nil)
        #expect(!parsed.flag("quiet"))
    }

    @Test func aChoiceIsReadAsItsType() throws {
        enum Format: String { case xml, binary, json }
        let parsed = try SampleCommands.parse(["package", "A.app", "-o", "A.ipa", "--to", "binary"])
        #expect(parsed.choice("to", as: Format.self) == .binary)
    }

    @Test func aMissingRequiredOptionIsAUsageErrorNamingIt() {
        #expect(
            SampleCommands.usageError(["package", "A.app"])
                == UsageError(message: "missing -o OUT.ipa", commandPath: ["tool", "package"]))
    }

    @Test func anIntegerOutOfItsRangeIsAUsageError() {
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "A.ipa", "--level", "11"])?.message
                == "--level takes 0 to 9, not '11'")
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "A.ipa", "--level", "six"])?.message
                == "--level takes 0 to 9, not 'six'")
    }

    @Test func aValueOutsideTheChoicesSuggestsTheNearestOrListsThem() {
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "A.ipa", "--to", "jsn"])?.message
                == "unknown format 'jsn'; did you mean 'json'?")
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "A.ipa", "--to", "yaml"])?.message
                == "unknown format 'yaml'; use xml, binary or json")
    }

    @Test func aKeyValueWithoutNameOrEqualsIsAUsageError() {
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "A.ipa", "--set", "foo"])?.message
                == "--set takes KEYPATH=VALUE, not 'foo'")
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "A.ipa", "--set", "=1"])?.message
                == "--set takes KEYPATH=VALUE, not '=1'")
    }

    @Test func aCheckedValueIsRefusedWithItsExpectation() {
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "A.ipa", "--at", "soon"])?.message
                == "--at takes a date like 2026-12-31, not 'soon'")
    }

    @Test func anEmptyPathIsAUsageError() {
        #expect(SampleCommands.usageError(["package", "A.app", "-o", ""])?.message == "-o takes a path, not an empty string")
    }

    @Test func aPositionalChoiceIsCheckedToo() {
        #expect(SampleCommands.usageError(["lint", "bild", "a"])?.message == "unknown field 'bild'; did you mean 'build'?")
        #expect(SampleCommands.usageError(["lint", "mark", "a"])?.message == "unknown field 'mark'; use build or marketing")
    }

    @Test func negativeNumbersAndADashAreValuesNotOptions() throws {
        #expect(try SampleCommands.parse(["set", "Count", "-5"]).positionals == ["Count", "-5"])
        #expect(try SampleCommands.parse(["set", "Ratio", "-0.25"]).positionals == ["Ratio", "-0.25"])
        #expect(try SampleCommands.parse(["set", "-", "-1e3"]).positionals == ["-", "-1e3"])
        #expect(SampleCommands.usageError(["set", "Count", "-x"])?.message == "unknown option '-x'")
    }

    @Test func aMistypedOptionOrCommandSuggestsTheNearest() {
        #expect(
            SampleCommands.usageError(["package", "A.app", "--outptu", "x"])?.message
                == "unknown option '--outptu'; did you mean '--output'?")
        #expect(SampleCommands.usageError(["packge"])?.message == "unknown command 'packge'; did you mean 'package'?")
    }

    @Test func anOptionGivenTwiceIsAUsageErrorUnlessRepeatable() {
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "a", "--output", "b"])?.message
                == "option '--output' is given more than once")
    }

    @Test func aValueMissingAtTheEndOrGivenToAFlagIsAUsageError() {
        #expect(SampleCommands.usageError(["package", "A.app", "-o"])?.message == "option '-o' needs a value (OUT.ipa)")
        #expect(
            SampleCommands.usageError(["package", "A.app", "-o", "a", "--quiet=yes"])?.message
                == "option '--quiet' takes no value")
    }

    @Test func positionalsAreCountedAgainstTheDeclaration() {
        #expect(SampleCommands.usageError(["set"])?.message == "missing KEY")
        #expect(SampleCommands.usageError(["set", "a", "b", "c"])?.message == "unexpected argument 'c'")
        #expect(SampleCommands.usageError([]) == UsageError(message: "'tool' needs a subcommand", commandPath: ["tool"]))
    }

    @Test func doubleDashEndsOptions() throws {
        #expect(try SampleCommands.parse(["set", "--", "--help", "-q"]).positionals == ["--help", "-q"])
    }

    @Test func helpAndVersionAreOutcomesNotErrors() throws {
        let parser = CommandLineParser(root: SampleCommands.root)
        guard case .help(let path) = try parser.parse(["package", "--level", "99", "-h"]) else { Issue.record("no help"); return }
        #expect(path == ["tool", "package"])
        guard case .help(let named) = try parser.parse(["help", "set"]) else { Issue.record("no help"); return }
        #expect(named == ["tool", "set"])
        guard case .version = try parser.parse(["--version"]) else { Issue.record("no version"); return }
        #expect(parser.command(at: ["tool", "lint"])?.name == "lint")
        #expect(parser.command(at: ["tool", "nope"]) == nil)
    }
}
