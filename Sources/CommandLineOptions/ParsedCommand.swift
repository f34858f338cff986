/// What the parser found on the command line for one command, already checked against the
/// declarations: values have their declared type, required options are present and defaults
/// are filled in.
public struct ParsedCommand: Sendable {
    /// Names from the tool down to this command: `["adhocbuild", "plist", "set"]`.
    public var path: [String]
    /// The arguments in order; commands read them through their `CommandOptions`.
    public internal(set) var positionals: [String] = []
    /// Given values by option key, in command-line order.
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    /// Declared defaults by option key.
    var defaults: [String: String] = [:]

    public init(path: [String]) { self.path = path }

    /// The option's value (the last one given), else its declared default.
    public func value(of option: OptionSpec) -> String? { value(option.key) }

    // The look-ups by key below serve the typed declarations (`Declaration`); commands read their
    // values through those, so that a misspelt key cannot compile.

    /// The option's value (the last one given), else its declared default.
    func value(_ key: String) -> String? { values[key]?.last ?? defaults[key] }

    /// The option's value (the last one given), if it was given.
    func given(_ key: String) -> String? { values[key]?.last }

    /// Whether the option was given on the command line (a default does not count).
    func isGiven(_ key: String) -> Bool { values[key] != nil || flags.contains(key) }

    /// The value of an option declared required or with a default, which the parser guarantees.
    func required(_ key: String) -> String {
        guard let value = value(key) else { preconditionFailure("option '\(key)' is neither required nor defaulted") }
        return value
    }

    /// The value of an option declared `.integer`.
    func integer(_ key: String) -> Int? { value(key).flatMap { Int($0) } }

    /// The value of an option declared `.choice`, as the type whose raw values are the choices.
    func choice<Choice: RawRepresentable>(_ key: String, as type: Choice.Type = Choice.self) -> Choice?
    where Choice.RawValue == String {
        value(key).flatMap(Choice.init(rawValue:))
    }

    /// Every value of a repeatable option, in order.
    func allValues(_ key: String) -> [String] { values[key] ?? [] }

    /// Every value of a repeatable `.keyValue` option, split at the first `=`.
    func pairs(_ key: String) -> [(name: String, value: String)] {
        allValues(key).compactMap { text in
            guard let equals = text.firstIndex(of: "=") else { return nil }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    func flag(_ key: String) -> Bool { flags.contains(key) }

    func positional(_ index: Int) -> String? { positionals.indices.contains(index) ? positionals[index] : nil }

    /// A usage error about this command, for rules the declarations cannot state
    /// ("give exactly one of --app and --project").
    public func usageError(_ message: String) -> UsageError { UsageError(message: message, commandPath: path) }
}
