/// Renders usage lines and help from the same declarations the parser checks against.
public enum HelpFormatter {
    /// `adhocbuild package APP -o OUT.ipa [options]`: arguments, then required options, then
    /// `[options]` when there are others.
    public static func usage(_ command: CommandSpec, path: [String]) -> String {
        var parts = path
        if !command.subcommands.isEmpty && command.run == nil {
            parts.append("<command>")
        } else {
            for argument in command.arguments {
                var text = argument.name + (argument.isVariadic ? "..." : "")
                if argument.isOptional { text = "[\(text)]" }
                parts.append(text)
            }
        }
        parts += command.options.filter(\.isRequired).map(\.synopsis)
        if command.options.contains(where: { !$0.isRequired }) { parts.append("[options]") }
        return parts.joined(separator: " ")
    }

    /// The full help: abstract, usage, discussion, then tables of commands, arguments, options
    /// and environment variables.
    public static func help(_ command: CommandSpec, path: [String]) -> String {
        var lines: [String] = [command.abstract, "", "Usage: " + usage(command, path: path)]
        if !command.discussion.isEmpty {
            lines.append("")
            for paragraph in command.discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                lines += wrap(String(paragraph), width: 100)
            }
        }
        lines += table("Commands", command.subcommands.map { ($0.name, $0.abstract) })
        lines += table("Arguments", command.arguments.map { ($0.name, describe($0.help, allowed: $0.kind.allowedValues)) }, wraps: true)
        var optionRows = command.options.map(optionRow)
        optionRows.append(("-h, --help", "Show this help."))
        if path.count == 1 { optionRows.append(("--version", "Print the version.")) }
        lines += table("Options", optionRows, wraps: true)
        lines += table("Environment", command.environment)
        if command.run != nil || path.count == 1 { lines += table("Exit status", exitStatusRows) }
        if !command.subcommands.isEmpty {
            let helpPath = ([path[0], "help"] + path.dropFirst()).joined(separator: " ")
            lines += ["", "See '\(helpPath) <command>' for a command's options."]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the exit codes mean, the same for every command.
    static let exitStatusRows = [
        ("0", "Success."),
        ("1", "Failure: each error names the file (and the key path, line or entry) and what is wrong."),
        ("2", "Usage error: an unknown, missing or malformed argument or option.")
    ]

    /// An option's row: its spellings and placeholder, then its help with the allowed values,
    /// the default and whether it is required, as declared.
    static func optionRow(_ option: OptionSpec) -> (String, String) {
        var left = option.names.joined(separator: ", ")
        if let valueName = option.valueName { left += " " + valueName }
        var notes: [String] = []
        if !option.isFlag, let allowed = option.kind.allowedValues { notes.append(allowed) }
        if let value = option.defaultValue ?? option.defaultDescription { notes.append("default: \(value)") }
        if option.isRequired { notes.append("required") }
        if option.isRepeatable { notes.append("repeatable") }
        return (left, describe(option.help, notes: notes))
    }

    static func describe(_ help: String, allowed: String?) -> String {
        describe(help, notes: allowed.map { [$0] } ?? [])
    }

    /// `help` with `notes` in brackets before its final period: "Deflate level; 0 stores (0 to 9; default: 6)."
    /// When the help already ends in brackets, the notes join them: "('-' for standard output; required)."
    static func describe(_ help: String, notes: [String]) -> String {
        guard !notes.isEmpty else { return help }
        let sentence = help.hasSuffix(".") ? String(help.dropLast()) : help
        if sentence.hasSuffix(")") { return sentence.dropLast() + "; " + notes.joined(separator: "; ") + ")." }
        return sentence + " (" + notes.joined(separator: "; ") + ")."
    }

    /// A titled two-column table, the left column at most 30 wide (longer entries get their own
    /// line), the right one wrapped when `wraps` to keep lines within 100 characters.
    static func table(_ title: String, _ rows: [(String, String)], wraps: Bool = false) -> [String] {
        guard !rows.isEmpty else { return [] }
        var lines = ["", title + ":"]
        let width = min(30, rows.map(\.0.count).max() ?? 0)
        let indent = String(repeating: " ", count: width + 4)
        for (left, right) in rows {
            let wrapped = wraps ? wrap(right, width: 100 - indent.count) : [right]
            if left.count > width {
                lines.append("  " + left)
                lines.append(indent + wrapped[0])
            } else {
                lines.append("  " + left + String(repeating: " ", count: width + 2 - left.count) + wrapped[0])
            }
            lines += wrapped.dropFirst().map { indent + $0 }
        }
        return lines
    }

    /// Breaks `text` into lines of at most `width` characters at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        lines.append(current)
        return lines
    }
}
