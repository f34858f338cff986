/// One argument, one option or a group of options of an `Options` struct: what the parser and help see,
/// and how its value is stored into the struct's property.
public struct Declaration<Options: CommandOptions> {
    /// The options declared (one, or a group's).
    let options: [OptionSpec]
    /// The argument declared, if this is one.
    let argument: ArgumentSpec?
    /// Stores the value from the parsed command line; `position` is the argument's index among the
    /// arguments.
    let read: (_ options: inout Options, _ parsed: ParsedCommand, _ position: Int) throws -> Void

    /// The options of `Group`, shared by several commands, stored in one property.
    public static func group<Group: CommandOptions>(_ property: WritableKeyPath<Options, Group>) -> Self {
        precondition(Group.argumentSpecs.isEmpty, "\(Group.self): a group holds options only")
        return Self(options: Group.optionSpecs, argument: nil) { options, parsed, _ in
            options[keyPath: property] = try Group.read(from: parsed)
        }
    }

    /// A value the parser checked that does not convert; the declarations make this unreachable.
    static func invalid(_ text: String, for name: String, in parsed: ParsedCommand) -> UsageError {
        parsed.usageError("\(name) cannot take '\(text)'")
    }
}

/// One `NAME=VALUE` of a repeatable key=value option, split at the first `=`.
public struct KeyValue: Equatable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
