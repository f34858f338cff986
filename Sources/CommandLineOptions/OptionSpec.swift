/// A command-line option, declared once with its value's type, whether it is required and its
/// default, so that parsing, checking and help all come from the declaration.
public struct OptionSpec: Sendable {
    /// Every spelling, short first: `["-o", "--output"]`.
    public var names: [String]
    /// The placeholder for the option's value; nil for a flag that takes none.
    public var valueName: String?
    /// What the value must be (ignored for flags).
    public var kind: ValueKind
    public var help: String
    /// Calling the command without it is a usage error; usage lines show it.
    public var isRequired: Bool
    /// The value when the option is not given; help shows it.
    public var defaultValue: String?
    /// May be given more than once; every value is kept.
    public var isRepeatable: Bool
    /// What happens when the option is not given, for help, when that is not a fixed value
    /// ("the base's format"); the command works it out.
    public var defaultDescription: String?

    /// The key values are stored and read under: the long name without dashes.
    public var key: String { String((names.last ?? "").drop(while: { $0 == "-" })) }
    public var isFlag: Bool { valueName == nil }

    /// An option that takes no value.
    public static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(
            names: names, valueName: nil, kind: .text, help: help, isRequired: false, defaultValue: nil,
            isRepeatable: false, defaultDescription: nil)
    }

    /// An option that takes a value named `name` of type `kind`: required, or with a `default`
    /// value, or with a default the command works out and `defaultDescription` describes.
    public static func value(
        _ names: String..., name: String, kind: ValueKind = .text, help: String,
        required: Bool = false, default defaultValue: String? = nil,
        defaultDescription: String? = nil, repeatable: Bool = false
    ) -> OptionSpec {
        value(
            names, name: name, kind: kind, help: help, required: required, defaultValue: defaultValue,
            defaultDescription: defaultDescription, repeatable: repeatable)
    }

    static func value(
        _ names: [String], name: String, kind: ValueKind, help: String, required: Bool = false,
        defaultValue: String? = nil, defaultDescription: String? = nil, repeatable: Bool = false
    ) -> OptionSpec {
        precondition(!(required && (defaultValue != nil || defaultDescription != nil)), "\(names): a required option has no default")
        return OptionSpec(
            names: names, valueName: name, kind: kind, help: help, isRequired: required,
            defaultValue: defaultValue, isRepeatable: repeatable, defaultDescription: defaultDescription)
    }

    /// `-o OUT.ipa`: the first spelling and the placeholder, as usage lines and errors show it.
    public var synopsis: String { [names.first ?? key, valueName].compactMap { $0 }.joined(separator: " ") }
}
