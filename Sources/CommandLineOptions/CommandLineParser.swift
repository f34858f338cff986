import SystemSupport

/// Parses the arguments after the tool's name against a tree of `CommandSpec`s, checking every
/// value against its declaration.
///
/// `--` ends the options; `-h`/`--help` anywhere asks for help; `--version` before a subcommand asks
/// for the version; `help [COMMAND…]` at the top asks for a command's help. A lone `-` and negative
/// numbers (`-5`, `-0.5`) are values, not options.
public struct CommandLineParser {
    public enum Outcome {
        case run(CommandSpec, ParsedCommand)
        /// Help for the command at this path (names from the tool down).
        case help([String])
        case version
    }

    public let root: CommandSpec

    public init(root: CommandSpec) { self.root = root }

    public func parse(_ arguments: [String]) throws -> Outcome {
        var command = root
        var parsed = ParsedCommand(path: [root.name])
        var index = 0
        var optionsEnded = false
        var given: [GivenValue] = []
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded && (argument == "--help" || argument == "-h") { return .help(parsed.path) }
            if !optionsEnded && argument == "--version" && parsed.path.count == 1 { return .version }
            if !optionsEnded && argument == "--" { optionsEnded = true; continue }
            if !optionsEnded && Self.looksLikeOption(argument, in: command) {
                given += try readOption(argument, from: arguments, at: &index, of: command, into: &parsed)
                continue
            }
            if !command.subcommands.isEmpty && parsed.positionals.isEmpty {
                if argument == "help" && parsed.path.count == 1 {
                    return .help([root.name] + arguments[index...].filter { !$0.hasPrefix("-") })
                }
                command = try subcommand(argument, of: command, path: parsed.path)
                parsed.path.append(command.name)
                continue
            }
            parsed.positionals.append(argument)
        }
        // Values are checked only now, so that '--help' anywhere shows help instead of a value's error.
        for value in given {
            if let problem = value.option.kind.problem(with: value.text, for: value.spelling, placeholder: value.option.valueName!) {
                throw parsed.usageError(problem)
            }
        }
        try check(&parsed, against: command)
        return .run(command, parsed)
    }

    /// The command at `path` (names from the tool down), or nil.
    public func command(at path: [String]) -> CommandSpec? {
        var command = root
        for name in path.dropFirst() {
            guard let sub = command.subcommand(named: name) else { return nil }
            command = sub
        }
        return command
    }

    /// Options start with '-'; a lone '-' (standard input) and a negative number are values,
    /// unless the command declares an option spelled that way.
    static func looksLikeOption(_ argument: String, in command: CommandSpec) -> Bool {
        guard argument.hasPrefix("-"), argument != "-" else { return false }
        if command.option(spelled: argument) != nil { return true }
        return !isNegativeNumber(argument)
    }

    static func isNegativeNumber(_ argument: String) -> Bool {
        let rest = argument.dropFirst()
        guard let first = rest.first, first.isASCII, first.isNumber || first == "." else { return false }
        return Double(argument) != nil
    }

    private func subcommand(_ name: String, of command: CommandSpec, path: [String]) throws -> CommandSpec {
        if let sub = command.subcommand(named: name) { return sub }
        var message = "unknown command '\(name)'"
        if let guess = Suggestion.closest(to: name, in: command.subcommands.map(\.name)) {
            message += "; did you mean '\(guess)'?"
        }
        throw UsageError(message: message, commandPath: path)
    }

    /// An option's value as given, to be checked once every argument is read.
    private struct GivenValue {
        var option: OptionSpec
        var spelling: String
        var text: String
    }

    /// Reads one option (and its value, inline after '=' or the next argument) into `parsed`;
    /// returns the value to check, if it takes one.
    private func readOption(
        _ argument: String, from arguments: [String], at index: inout Int, of command: CommandSpec,
        into parsed: inout ParsedCommand
    ) throws -> [GivenValue] {
        var name = argument
        var inlineValue: String? = nil
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inlineValue = String(argument[argument.index(after: equals)...])
        }
        guard let option = command.option(spelled: name) else {
            var message = "unknown option '\(name)'"
            if let guess = Suggestion.closest(to: name, in: command.options.flatMap(\.names) + ["--help"]) {
                message += "; did you mean '\(guess)'?"
            }
            throw parsed.usageError(message)
        }
        if option.isFlag {
            if inlineValue != nil { throw parsed.usageError("option '\(name)' takes no value") }
            parsed.flags.insert(option.key)
            return []
        }
        let value: String
        if let inlineValue {
            value = inlineValue
        } else {
            guard index < arguments.count else { throw parsed.usageError("option '\(name)' needs a value (\(option.valueName!))") }
            value = arguments[index]
            index += 1
        }
        if !option.isRepeatable && parsed.values[option.key] != nil {
            throw parsed.usageError("option '\(name)' is given more than once")
        }
        parsed.values[option.key, default: []].append(value)
        return [GivenValue(option: option, spelling: name, text: value)]
    }

    /// After the last argument: a runnable command, its positionals and required options all
    /// there and valid; then the defaults.
    private func check(_ parsed: inout ParsedCommand, against command: CommandSpec) throws {
        guard command.run != nil else {
            throw CommandSpec.needsSubcommand(parsed)
        }
        let required = command.arguments.filter { !$0.isOptional }.count
        if parsed.positionals.count < required {
            throw parsed.usageError("missing \(command.arguments[parsed.positionals.count].name)")
        }
        let variadic = command.arguments.last?.isVariadic ?? false
        if !variadic && parsed.positionals.count > command.arguments.count {
            throw parsed.usageError("unexpected argument '\(parsed.positionals[command.arguments.count])'")
        }
        for (position, value) in parsed.positionals.enumerated() {
            guard
                let argument = command.arguments.indices.contains(position)
                    ? command.arguments[position]
                    : variadic ? command.arguments.last : nil
            else { continue }
            if let problem = argument.kind.problem(with: value, for: argument.name, placeholder: argument.name) {
                throw parsed.usageError(problem)
            }
        }
        for option in command.options {
            if option.isRequired && parsed.values[option.key] == nil { throw parsed.usageError("missing \(option.synopsis)") }
            if let value = option.defaultValue { parsed.defaults[option.key] = value }
        }
    }
}
