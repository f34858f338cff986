/// Renders help and usage text from the same declarations the parser uses.
enum HelpFormatter {
    static func usage(_ command: CommandSpec, path: [String]) -> String {
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
        if !command.options.isEmpty { parts.append("[options]") }
        return parts.joined(separator: " ")
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

    static func help(_ command: CommandSpec, path: [String]) -> String {
        var lines: [String] = []
        lines.append(command.abstract)
        lines.append("")
        lines.append("Usage: " + usage(command, path: path))
        if !command.discussion.isEmpty {
            lines.append("")
            for paragraph in command.discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                lines += wrap(String(paragraph), width: 100)
            }
        }
        func table(_ title: String, _ rows: [(String, String)]) {
            guard !rows.isEmpty else { return }
            lines.append("")
            lines.append(title + ":")
            let width = min(30, rows.map(\.0.count).max() ?? 0)
            for (left, right) in rows {
                if left.count > width {
                    lines.append("  " + left)
                    lines.append("  " + String(repeating: " ", count: width + 2) + right)
                } else {
                    lines.append("  " + left.padding(toLength: width + 2, withPad: " ", startingAt: 0) + right)
                }
            }
        }
        table("Commands", command.subcommands.map { ($0.name, $0.abstract) })
        table("Arguments", command.arguments.map { ($0.name, $0.help) })
        var optionRows = command.options.map { option -> (String, String) in
            var left = option.names.joined(separator: ", ")
            if let valueName = option.valueName { left += " " + valueName }
            return (left, option.help)
        }
        optionRows.append(("-h, --help", "Show this help."))
        if path.count == 1 { optionRows.append(("--version", "Print the version.")) }
        table("Options", optionRows)
        table("Environment", command.environment)
        if !command.subcommands.isEmpty {
            lines.append("")
            let helpPath = ([path[0], "help"] + path.dropFirst()).joined(separator: " ")
            lines.append("See '\(helpPath) <command>' for a command's options.")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
