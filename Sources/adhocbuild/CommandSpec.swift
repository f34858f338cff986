/// A command-line option, declared as data so parsing and help come from one place.
struct OptionSpec {
    /// Every spelling, short first: `["-o", "--output"]`.
    var names: [String]
    /// The placeholder for the option's value; nil for a flag that takes none.
    var valueName: String?
    var help: String
    var repeatable = false

    /// The key values are stored under: the long name without dashes.
    var key: String { String((names.last ?? "").drop(while: { $0 == "-" })) }
    var isFlag: Bool { valueName == nil }

    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: nil, help: help)
    }

    static func value(_ names: String..., name: String, help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(names: names, valueName: name, help: help, repeatable: repeatable)
    }
}

/// A positional argument.
struct ArgumentSpec {
    var name: String
    var help: String
    var isOptional = false
    var isVariadic = false
}

/// A command or a group of subcommands, with what it runs.
struct CommandSpec {
    var name: String
    var abstract: String
    var discussion: String = ""
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    var subcommands: [CommandSpec] = []
    /// Environment variables the command reads: name and what it does.
    var environment: [(String, String)] = []
    /// Runs the command and returns its exit code; nil for a group that only holds subcommands.
    var run: ((ParsedCommand) throws -> Int32)? = nil

    func subcommand(named name: String) -> CommandSpec? { subcommands.first { $0.name == name } }
}

/// What the parser found on the command line for one command.
struct ParsedCommand {
    /// Names from the tool down to this command: `["adhocbuild", "plist", "set"]`.
    var path: [String]
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []

    func value(_ key: String) -> String? { values[key]?.last }
    func allValues(_ key: String) -> [String] { values[key] ?? [] }
    func flag(_ key: String) -> Bool { flags.contains(key) }
    func positional(_ index: Int) -> String? { positionals.indices.contains(index) ? positionals[index] : nil }
}

/// A mistake in how the command was called: printed with the usage line, exit code 2.
struct UsageError: Error {
    var message: String
    var commandPath: [String]
}
