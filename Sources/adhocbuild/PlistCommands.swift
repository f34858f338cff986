import AdhocBuildKit
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

    static func outputFormat(_ parsed: ParsedCommand, default fallback: PlistTool.OutputFormat) throws -> PlistTool.OutputFormat {
        guard let text = parsed.value("format") else { return fallback }
        guard let format = PlistTool.OutputFormat(rawValue: text) else {
            throw UsageError(message: "unknown format '\(text)'; use "
                                + PlistTool.OutputFormat.allCases.map(\.rawValue).joined(separator: ", "),
                             commandPath: parsed.path)
        }
        return format
    }

    static func plistFormat(_ parsed: ParsedCommand, key: String) throws -> PlistFormat? {
        guard let text = parsed.value(key) else { return nil }
        guard let format = PlistFormat(rawValue: text), format != .openStep else {
            throw UsageError(message: "unknown format '\(text)'; use xml, binary or json", commandPath: parsed.path)
        }
        return format
    }

    static let formatOption = OptionSpec.value("--format", name: "FORMAT", help: "text (default for print), raw (default for get), xml or json.")
    static let sortKeysOption = OptionSpec.flag("--sort-keys", help: "Write dictionary keys sorted, as Apple's tools do.")
    static let outputOption = OptionSpec.value("-o", "--output", name: "OUT", help: "Write the result here instead of in place ('-' for standard output).")

    static var print: CommandSpec {
        CommandSpec(
            name: "print", abstract: "Print a plist, or the value at a key path.",
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp),
                        ArgumentSpec(name: "KEYPATH", help: keyPathHelp, isOptional: true)],
            options: [formatOption, sortKeysOption],
            run: { parsed in
                let keyPath = PlistKeyPath(parsing: parsed.positional(1) ?? "")
                Console.out(try PlistTool.print(parsed.positionals[0], keyPath: keyPath,
                                                format: try outputFormat(parsed, default: .text),
                                                sortKeys: parsed.flag("sort-keys")))
                return 0
            })
    }

    static var get: CommandSpec {
        CommandSpec(
            name: "get", abstract: "Print the value at a key path; scalars bare, for scripts.",
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp), ArgumentSpec(name: "KEYPATH", help: keyPathHelp)],
            options: [formatOption],
            run: { parsed in
                Console.out(try PlistTool.get(parsed.positionals[0], keyPath: PlistKeyPath(parsing: parsed.positionals[1]),
                                              format: try outputFormat(parsed, default: .raw)))
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
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp), ArgumentSpec(name: "KEYPATH", help: keyPathHelp),
                        ArgumentSpec(name: "VALUE", help: "The new value, read as --type.", isOptional: true)],
            options: [.value("-t", "--type", name: "TYPE", help: "The value's type (default: keep the existing type, else string)."),
                      outputOption],
            run: { parsed in
                var type: PlistValueType? = nil
                if let text = parsed.value("type") {
                    guard let known = PlistValueType(rawValue: text) else {
                        var message = "unknown type '\(text)'"
                        if let guess = Suggestion.closest(to: text, in: PlistValueType.allCases.map(\.rawValue)) {
                            message += "; did you mean '\(guess)'?"
                        }
                        throw UsageError(message: message, commandPath: parsed.path)
                    }
                    type = known
                }
                try PlistTool.set(parsed.positionals[0], keyPath: PlistKeyPath(parsing: parsed.positionals[1]),
                                  text: parsed.positional(2), type: type, output: parsed.value("output"))
                return 0
            })
    }

    static var delete: CommandSpec {
        CommandSpec(
            name: "delete", abstract: "Remove the value at a key path.",
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp), ArgumentSpec(name: "KEYPATH", help: keyPathHelp)],
            options: [outputOption],
            run: { parsed in
                try PlistTool.delete(parsed.positionals[0], keyPath: PlistKeyPath(parsing: parsed.positionals[1]),
                                     output: parsed.value("output"))
                return 0
            })
    }

    static var convert: CommandSpec {
        CommandSpec(
            name: "convert", abstract: "Convert a plist to XML, binary or JSON (in place unless -o is given).",
            discussion: "JSON has no dates or data: dates become ISO 8601 strings and data base64 strings.",
            arguments: [ArgumentSpec(name: "FILE", help: fileHelp)],
            options: [.value("--to", name: "FORMAT", help: "xml, binary or json."), outputOption, sortKeysOption],
            run: { parsed in
                guard let format = try plistFormat(parsed, key: "to") else {
                    throw UsageError(message: "missing --to FORMAT (xml, binary or json)", commandPath: parsed.path)
                }
                try PlistTool.convert(parsed.positionals[0], to: format, output: parsed.value("output"),
                                      sortKeys: parsed.flag("sort-keys"))
                return 0
            })
    }

    static var merge: CommandSpec {
        CommandSpec(
            name: "merge", abstract: "Deep-merge plists: each overlay over the ones before it.",
            discussion: "Dictionaries merge key by key; every other value, arrays included, is replaced.",
            arguments: [ArgumentSpec(name: "BASE", help: "The plist merged into."),
                        ArgumentSpec(name: "OVERLAY", help: "Plists laid over it, in order.", isVariadic: true)],
            options: [.value("-o", "--output", name: "OUT", help: "Where to write the merged plist ('-' for standard output)."),
                      .value("--to", name: "FORMAT", help: "xml, binary or json (default: the base's format)."),
                      .flag("--explain", help: "Print every leaf key path with its value and the file that set it."),
                      sortKeysOption],
            run: { parsed in
                guard let output = parsed.value("output") else {
                    throw UsageError(message: "missing -o OUT", commandPath: parsed.path)
                }
                let merge = try PlistTool.merge(base: parsed.positionals[0], overlays: Array(parsed.positionals.dropFirst()),
                                                output: output, format: try plistFormat(parsed, key: "to"),
                                                sortKeys: parsed.flag("sort-keys"))
                if parsed.flag("explain") {
                    let printer = PlistTextPrinter()
                    let lines = merge.leaves.map { "\($0.keyPath) = \(printer.renderInline($0.value))  (\($0.source))" }
                    let text = lines.joined(separator: "\n") + "\n"
                    if output == "-" { Console.err(text) } else { Console.out(text) }
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
                for result in PlistTool.lint(parsed.positionals) {
                    if result.isValid {
                        if !parsed.flag("quiet") { Console.out(result.line + "\n") }
                    } else {
                        failed = true
                        Console.out(result.line + "\n")
                    }
                }
                return failed ? 1 : 0
            })
    }
}
