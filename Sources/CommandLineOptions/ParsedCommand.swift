/// What the parser found on the command line for one command, already checked against the
/// declarations: values have their declared type, required options are present and defaults
/// are filled in.
public struct ParsedCommand: Sendable {
    /// Names from the tool down to this command: `["adhocbuild", "plist", "set"]`.
    public var path: [String]
    public var positionals: [String] = []
    /// Given values by option key, in command-line order.
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    /// Declared defaults by option key.
    var defaults: [String: String] = [:]

    public init(path: [String]) { self.path = path }

    /// The option's value (the last one given), else its declared default.
    public func value(_ key: String) -> String? { values[key]?.last ?? defaults[key] }

    /// Whether the option was given on the command line (a default does not count).
    public func isGiven(_ key: String) -> Bool { values[key] != nil || flags.contains(key) }

    /// The value of an option declared required or with a default, which the parser guarantees.
    public func required(_ key: String) -> String {
        guard let value = value(key) else { preconditionFailure("option '\(key)' is neither required nor defaulted") }
        return value
    }

    /// The value of an option declared `.integer`.
    public func integer(_ key: String) -> Int? { value(key).flatMap { Int($0) } }

    /// The value of an option declared `.choice`, as the type whose raw values are the choices.
    public func choice<Choice: RawRepresentable>(_ key: String, as type: Choice.Type = Choice.self) -> Choice?
    where Choice.RawValue == String {
        value(key).flatMap(Choice.init(rawValue:))
    }

    /// Every value of a repeatable option, in order.
    public func allValues(_ key: String) -> [String] { values[key] ?? [] }

    /// Every value of a repeatable `.keyValue` option, split at the first `=`.
    public func pairs(_ key: String) -> [(name: String, value: String)] {
        allValues(key).compactMap { text in
            guard let equals = text.firstIndex(of: "=") else { return nil }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    public func flag(_ key: String) -> Bool { flags.contains(key) }

    public func positional(_ index: Int) -> String? { positionals.indices.contains(index) ? positionals[index] : nil }

    /// A usage error about this command, for rules the declarations cannot state
    /// ("give exactly one of --app and --project").
    public func usageError(_ message: String) -> UsageError { UsageError(message: message, commandPath: path) }
}
