import AdhocBuildKit
import SystemSupport

/// Parses `argv` against a tree of `CommandSpec`s.
struct ArgumentParser {
    enum Outcome {
        case run(CommandSpec, ParsedCommand)
        case help([String])
        case version
    }

    let root: CommandSpec

    func parse(_ arguments: [String]) throws -> Outcome {
        var command = root
        var parsed = ParsedCommand(path: [root.name])
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded && (argument == "--help" || argument == "-h") { return .help(parsed.path) }
            if !optionsEnded && argument == "--version" && parsed.path.count == 1 { return .version }
            if !optionsEnded && argument == "--" { optionsEnded = true; continue }
            if !optionsEnded && argument.hasPrefix("-") && argument != "-" {
                var name = argument
                var inlineValue: String? = nil
                if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inlineValue = String(argument[argument.index(after: equals)...])
                }
                guard let option = command.options.first(where: { $0.names.contains(name) }) else {
                    let known = command.options.flatMap(\.names) + ["--help"]
                    var message = "unknown option '\(name)'"
                    if let suggestion = Suggestion.closest(to: name, in: known) {
                        message += "; did you mean '\(suggestion)'?"
                    }
                    throw UsageError(message: message, commandPath: parsed.path)
                }
                if option.isFlag {
                    if inlineValue != nil {
                        throw UsageError(message: "option '\(name)' takes no value", commandPath: parsed.path)
                    }
                    parsed.flags.insert(option.key)
                    continue
                }
                let value: String
                if let inlineValue { value = inlineValue } else {
                    guard index < arguments.count else {
                        throw UsageError(message: "option '\(name)' needs a value (\(option.valueName!))",
                                         commandPath: parsed.path)
                    }
                    value = arguments[index]
                    index += 1
                }
                if !option.repeatable && parsed.values[option.key] != nil {
                    throw UsageError(message: "option '\(name)' is given more than once", commandPath: parsed.path)
                }
                parsed.values[option.key, default: []].append(value)
                continue
            }
            if !command.subcommands.isEmpty && parsed.positionals.isEmpty {
                if argument == "help" && parsed.path.count == 1 {
                    return .help([root.name] + arguments[index...].filter { !$0.hasPrefix("-") })
                }
                guard let sub = command.subcommand(named: argument) else {
                    var message = "unknown command '\(argument)'"
                    if let suggestion = Suggestion.closest(to: argument, in: command.subcommands.map(\.name)) {
                        message += "; did you mean '\(suggestion)'?"
                    }
                    throw UsageError(message: message, commandPath: parsed.path)
                }
                command = sub
                parsed.path.append(sub.name)
                continue
            }
            parsed.positionals.append(argument)
        }
        guard command.run != nil else {
            throw UsageError(message: "'\(parsed.path.joined(separator: " "))' needs a subcommand",
                             commandPath: parsed.path)
        }
        let required = command.arguments.filter { !$0.isOptional }.count
        if parsed.positionals.count < required {
            let missing = command.arguments[parsed.positionals.count]
            throw UsageError(message: "missing \(missing.name)", commandPath: parsed.path)
        }
        if !(command.arguments.last?.isVariadic ?? false) && parsed.positionals.count > command.arguments.count {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[command.arguments.count])'",
                             commandPath: parsed.path)
        }
        return .run(command, parsed)
    }

    /// The command at `path` (names after the root), or nil.
    func command(at path: [String]) -> CommandSpec? {
        var command = root
        for name in path.dropFirst() {
            guard let sub = command.subcommand(named: name) else { return nil }
            command = sub
        }
        return command
    }
}
