import AdhocBuildKit
import CommandLineOptions
import Foundation
import PlistEditing
import PlistKit
import SystemSupport

/// `adhocbuild plist …`: argument declarations and the calls into `PlistTool`.
enum PlistCommands {
    static let keyPathHelp = "Key path, keys joined by ':' (CFBundleIcons:CFBundlePrimaryIcon); '\\:' is a literal ':'."
    static let fileHelp = "A plist in any format ('-' for standard input)."

    static var command: CommandSpec {
        CommandSpec(
            name: "plist",
            abstract: "Read, edit, convert, merge and check property lists (PlistBuddy and plutil for Linux).",
            discussion: """
                Formats are detected from content: XML, binary (bplist00), OpenStep (project.pbxproj, \
                .strings; read only) and JSON. Edits keep the file's format and are written atomically.
                """,
            subcommands: [print, get, set, delete, convert, merge, lint])
    }

    /// `--format` of `print` and `get`; the default is the property's initial value.
    static func formatOption<Options: CommandOptions>(
        _ property: WritableKeyPath<Options, PlistTool.OutputFormat>
    ) -> Declaration<Options> {
        .choice(property, "--format", name: "FORMAT", noun: "format", help: "How to print.")
    }

    static func sortKeysOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, Bool>) -> Declaration<Options> {
        .flag(property, "--sort-keys", help: "Write dictionary keys sorted, as Apple's tools do.")
    }

    static func outputOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, String?>) -> Declaration<Options> {
        .option(
            property, "-o", "--output", name: "OUT", kind: .path,
            help: "Write the result here instead of in place ('-' for standard output).", defaultDescription: "FILE itself")
    }

    /// The formats a plist can be written in (OpenStep is read only).
    static let writableFormats: [PlistFormat] = [.xml, .binary, .json]

    struct PrintOptions: CommandOptions {
        var file = ""
        var keyPath: String?
        var format = PlistTool.OutputFormat.text
        var sortKeys = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.file, "FILE", help: fileHelp), .argument(\.keyPath, "KEYPATH", help: keyPathHelp),
                formatOption(\.format), sortKeysOption(\.sortKeys)
            ]
        }
    }

    static var print: CommandSpec {
        CommandSpec(name: "print", abstract: "Print a plist, or the value at a key path.", options: PrintOptions.self) { options, _ in
            Console.out(
                try PlistTool.print(
                    options.file, keyPath: PlistKeyPath(parsing: options.keyPath ?? ""), format: options.format,
                    sortKeys: options.sortKeys, limits: try LimitSettings.current.plist))
            return 0
        }
    }

    struct GetOptions: CommandOptions {
        var file = ""
        var keyPath = ""
        var format = PlistTool.OutputFormat.raw
        static var declarations: [Declaration<Self>] {
            [.argument(\.file, "FILE", help: fileHelp), .argument(\.keyPath, "KEYPATH", help: keyPathHelp), formatOption(\.format)]
        }
    }

    static var get: CommandSpec {
        CommandSpec(name: "get", abstract: "Print the value at a key path; scalars bare, for scripts.", options: GetOptions.self) {
            options, _ in
            Console.out(
                try PlistTool.get(
                    options.file, keyPath: PlistKeyPath(parsing: options.keyPath), format: options.format,
                    limits: try LimitSettings.current.plist))
            return 0
        }
    }

    struct SetOptions: CommandOptions {
        var file = ""
        var keyPath = ""
        var value: String?
        var type: PlistValueType?
        var output: String?
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.file, "FILE", help: fileHelp), .argument(\.keyPath, "KEYPATH", help: keyPathHelp),
                .argument(\.value, "VALUE", help: "The new value, read as --type."),
                .choice(
                    \.type, "-t", "--type", name: "TYPE", noun: "type", help: "The value's type.",
                    defaultDescription: "the existing value's type, else string"),
                outputOption(\.output)
            ]
        }
    }

    static var set: CommandSpec {
        CommandSpec(
            name: "set", abstract: "Set the value at a key path, creating dictionaries on the way.",
            discussion: """
                Without --type an existing value keeps its type and a new one is a string. Types: \
                \(PlistValueType.allCases.map(\.rawValue).joined(separator: ", ")). bool takes true/false/yes/no/1/0; \
                date takes YYYY-MM-DDTHH:MM:SSZ; data takes base64; array and dict take JSON (or nothing, for an \
                empty one); json takes any JSON value. An array index equal to the array's length appends.
                """,
            options: SetOptions.self
        ) { options, _ in
            try PlistTool.set(
                options.file, keyPath: PlistKeyPath(parsing: options.keyPath), text: options.value, type: options.type,
                output: options.output, limits: try LimitSettings.current.plist)
            return 0
        }
    }

    struct DeleteOptions: CommandOptions {
        var file = ""
        var keyPath = ""
        var output: String?
        static var declarations: [Declaration<Self>] {
            [.argument(\.file, "FILE", help: fileHelp), .argument(\.keyPath, "KEYPATH", help: keyPathHelp), outputOption(\.output)]
        }
    }

    static var delete: CommandSpec {
        CommandSpec(name: "delete", abstract: "Remove the value at a key path.", options: DeleteOptions.self) { options, _ in
            try PlistTool.delete(
                options.file, keyPath: PlistKeyPath(parsing: options.keyPath), output: options.output,
                limits: try LimitSettings.current.plist)
            return 0
        }
    }

    struct ConvertOptions: CommandOptions {
        var file = ""
        var format = PlistFormat.xml
        var output: String?
        var sortKeys = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.file, "FILE", help: fileHelp),
                .choice(
                    \.format, "--to", name: "FORMAT", noun: "format", choices: writableFormats, help: "The format to write.",
                    required: true),
                outputOption(\.output), sortKeysOption(\.sortKeys)
            ]
        }
    }

    static var convert: CommandSpec {
        CommandSpec(
            name: "convert", abstract: "Convert a plist to XML, binary or JSON (in place unless -o is given).",
            discussion: "JSON has no dates or data: dates become ISO 8601 strings and data base64 strings.",
            options: ConvertOptions.self
        ) { options, _ in
            try PlistTool.convert(
                options.file, to: options.format, output: options.output, sortKeys: options.sortKeys,
                limits: try LimitSettings.current.plist)
            return 0
        }
    }

    struct MergeOptions: CommandOptions {
        var base = ""
        var overlays: [String] = []
        var output = ""
        var format: PlistFormat?
        var explain = false
        var sortKeys = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.base, "BASE", help: "The plist merged into."),
                .arguments(\.overlays, "OVERLAY", help: "Plists laid over it, in order."),
                .option(
                    \.output, "-o", "--output", name: "OUT", kind: .path,
                    help: "Where to write the merged plist ('-' for standard output).", required: true),
                .choice(
                    \.format, "--to", name: "FORMAT", noun: "format", choices: writableFormats, help: "The format to write.",
                    defaultDescription: "the base's format"),
                .flag(\.explain, "--explain", help: "Print every leaf key path with its value and the file that set it."),
                sortKeysOption(\.sortKeys)
            ]
        }
    }

    static var merge: CommandSpec {
        CommandSpec(
            name: "merge", abstract: "Deep-merge plists: each overlay over the ones before it.",
            discussion: "Dictionaries merge key by key; every other value, arrays included, is replaced.",
            options: MergeOptions.self
        ) { options, _ in
            let merge = try PlistTool.merge(
                base: options.base, overlays: options.overlays, output: options.output, format: options.format,
                sortKeys: options.sortKeys, limits: try LimitSettings.current.plist)
            if options.explain {
                let printer = PlistTextPrinter()
                let lines = merge.leaves.map { "\($0.keyPath) = \(printer.renderInline($0.value))  (\($0.source))" }
                if options.output == "-" {
                    Console.err(lines.map { UntrustedText.line($0) + "\n" }.joined())
                } else {
                    Console.lines(lines)
                }
            }
            return 0
        }
    }

    struct LintOptions: CommandOptions {
        var files: [String] = []
        var quiet = false
        static var declarations: [Declaration<Self>] {
            [
                .arguments(\.files, "FILE", help: "Plists to check."),
                .flag(\.quiet, "-q", "--quiet", help: "Print only the files that fail.")
            ]
        }
    }

    static var lint: CommandSpec {
        CommandSpec(name: "lint", abstract: "Check that files are valid plists; one line per file.", options: LintOptions.self) {
            options, _ in
            var failed = false
            for result in PlistTool.lint(options.files, limits: try LimitSettings.current.plist) {
                if result.isValid {
                    if !options.quiet { Console.line(result.line) }
                } else {
                    failed = true
                    Console.line(result.line)
                }
            }
            return failed ? 1 : 0
        }
    }
}
