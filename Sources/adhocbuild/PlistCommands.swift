import AdhocBuildKit
import CommandLineOptions
import Foundation
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

    /// The formats a plist can be written in (OpenStep is read only).
    static let writableFormats = ValueKind.choice(["xml", "binary", "json"], noun: "format")

    static func formatOption(default format: PlistTool.OutputFormat) -> OptionSpec {
        .value(
            "--format", name: "FORMAT", kind: .choice(PlistTool.OutputFormat.allCases.map(\.rawValue), noun: "format"),
            help: "How to print.", default: format.rawValue)
    }

    static let sortKeysOption = OptionSpec.flag("--sort-keys", help: "Write dictionary keys sorted, as Apple's tools do.")
    static let outputOption = OptionSpec.value(
        "-o", "--output", name: "OUT", kind: .path,
        help: "Write the result here instead of in place ('-' for standard output).", defaultDescription: "FILE itself")

    static var print: CommandSpec {
        CommandSpec(
            name: "print", abstract: "Print a plist, or the value at a key path.",
            arguments: [
                ArgumentSpec(name: "FILE", help: fileHelp),
                ArgumentSpec(name: "KEYPATH", help: keyPathHelp, isOptional: true)
            ],
            options: [formatOption(default: .text), sortKeysOption],
            run: { parsed in
                let keyPath = PlistKeyPath(parsing: parsed.positional(1) ?? "")
                Console.out(
                    try PlistTool.print(
                        parsed.positionals[0], keyPath: keyPath,
                        format: parsed.choice("format", as: PlistTool.OutputFormat.self)!,
                        sortKeys: parsed.flag("sort-keys"), limits: try LimitSettings.current.plist))
                return 0
            })
    }

    static var get: CommandSpec {
        CommandSpec(
            name: "get", abstract: "Print the value at a key path; scalars bare, for scripts.",
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp), ArgumentSpec(name: "KEYPATH", help: keyPathHelp)],
            options: [formatOption(default: .raw)],
            run: { parsed in
                Console.out(
                    try PlistTool.get(
                        parsed.positionals[0], keyPath: PlistKeyPath(parsing: parsed.positionals[1]),
                        format: parsed.choice("format", as: PlistTool.OutputFormat.self)!, limits: try LimitSettings.current.plist))
                return 0
            })
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
            arguments: [
                ArgumentSpec(name: "FILE", help: fileHelp), ArgumentSpec(name: "KEYPATH", help: keyPathHelp),
                ArgumentSpec(name: "VALUE", help: "The new value, read as --type.", isOptional: true)
            ],
            options: [
                .value(
                    "-t", "--type", name: "TYPE", kind: .choice(PlistValueType.allCases.map(\.rawValue), noun: "type"),
                    help: "The value's type.",
                    defaultDescription: "the existing value's type, else string"),
                outputOption
            ],
            run: { parsed in
                try PlistTool.set(
                    parsed.positionals[0], keyPath: PlistKeyPath(parsing: parsed.positionals[1]),
                    text: parsed.positional(2), type: parsed.choice("type", as: PlistValueType.self),
                    output: parsed.value("output"), limits: try LimitSettings.current.plist)
                return 0
            })
    }

    static var delete: CommandSpec {
        CommandSpec(
            name: "delete", abstract: "Remove the value at a key path.",
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp), ArgumentSpec(name: "KEYPATH", help: keyPathHelp)],
            options: [outputOption],
            run: { parsed in
                try PlistTool.delete(
                    parsed.positionals[0], keyPath: PlistKeyPath(parsing: parsed.positionals[1]),
                    output: parsed.value("output"), limits: try LimitSettings.current.plist)
                return 0
            })
    }

    static var convert: CommandSpec {
        CommandSpec(
            name: "convert", abstract: "Convert a plist to XML, binary or JSON (in place unless -o is given).",
            discussion: "JSON has no dates or data: dates become ISO 8601 strings and data base64 strings.",
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp)],
            options: [
                .value("--to", name: "FORMAT", kind: writableFormats, help: "The format to write.", required: true),
                outputOption, sortKeysOption
            ],
            run: { parsed in
                try PlistTool.convert(
                    parsed.positionals[0], to: parsed.choice("to", as: PlistFormat.self)!, output: parsed.value("output"),
                    sortKeys: parsed.flag("sort-keys"), limits: try LimitSettings.current.plist)
                return 0
            })
    }

    static var merge: CommandSpec {
        CommandSpec(
            name: "merge", abstract: "Deep-merge plists: each overlay over the ones before it.",
            discussion: "Dictionaries merge key by key; every other value, arrays included, is replaced.",
            arguments: [
                ArgumentSpec(name: "BASE", help: "The plist merged into."),
                ArgumentSpec(name: "OVERLAY", help: "Plists laid over it, in order.", isVariadic: true)
            ],
            options: [
                .value(
                    "-o", "--output", name: "OUT", kind: .path, help: "Where to write the merged plist ('-' for standard output).",
                    required: true),
                .value(
                    "--to", name: "FORMAT", kind: writableFormats, help: "The format to write.",
                    defaultDescription: "the base's format"),
                .flag("--explain", help: "Print every leaf key path with its value and the file that set it."),
                sortKeysOption
            ],
            run: { parsed in
                let output = parsed.required("output")
                let merge = try PlistTool.merge(
                    base: parsed.positionals[0], overlays: Array(parsed.positionals.dropFirst()),
                    output: output, format: parsed.choice("to", as: PlistFormat.self),
                    sortKeys: parsed.flag("sort-keys"), limits: try LimitSettings.current.plist)
                if parsed.flag("explain") {
                    let printer = PlistTextPrinter()
                    let lines = merge.leaves.map { "\($0.keyPath) = \(printer.renderInline($0.value))  (\($0.source))" }
                    if output == "-" {
                        Console.err(lines.map { UntrustedText.line($0) + "\n" }.joined())
                    } else {
                        Console.lines(lines)
                    }
                }
                return 0
            })
    }

    static var lint: CommandSpec {
        CommandSpec(
            name: "lint", abstract: "Check that files are valid plists; one line per file.",
            arguments: [ArgumentSpec(name: "FILE", help: "Plists to check.", isVariadic: true)],
            options: [.flag("-q", "--quiet", help: "Print only the files that fail.")],
            run: { parsed in
                var failed = false
                for result in PlistTool.lint(parsed.positionals, limits: try LimitSettings.current.plist) {
                    if result.isValid {
                        if !parsed.flag("quiet") { Console.line(result.line) }
                    } else {
                        failed = true
                        Console.line(result.line)
                    }
                }
                return failed ? 1 : 0
            })
    }
}
