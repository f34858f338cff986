/// The option declarations: the key path's type says what the option holds, and so what it must be
/// given.
extension Declaration {
    /// An option that takes text (`kind` `.text`, `.path` or `.checked`); nil when not given, which
    /// `defaultDescription` describes for help.
    public static func option(
        _ property: WritableKeyPath<Options, String?>, _ names: String..., name: String, kind: ValueKind = .text,
        help: String, defaultDescription: String? = nil
    ) -> Self {
        let spec = OptionSpec.value(names, name: name, kind: kind, help: help, defaultDescription: defaultDescription)
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            options[keyPath: property] = parsed.given(spec.key)
        }
    }

    /// An option that takes text and always has a value: `required`, or else the property's initial
    /// value, which help shows as the default.
    public static func option(
        _ property: WritableKeyPath<Options, String>, _ names: String..., name: String, kind: ValueKind = .text,
        help: String, required: Bool = false
    ) -> Self {
        let spec = OptionSpec.value(
            names, name: name, kind: kind, help: help, required: required,
            defaultValue: required ? nil : Options()[keyPath: property])
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            if let text = parsed.given(spec.key) {
                options[keyPath: property] = text
            } else if required {
                throw parsed.usageError("missing \(spec.synopsis)")
            }
        }
    }

    /// An option that takes a whole number, within `range` when one is given; the property's initial
    /// value is the default help shows.
    public static func integer(
        _ property: WritableKeyPath<Options, Int>, _ names: String..., name: String, range: ClosedRange<Int>? = nil,
        help: String
    ) -> Self {
        let spec = OptionSpec.value(
            names, name: name, kind: .integer(range), help: help, defaultValue: String(Options()[keyPath: property]))
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            guard let text = parsed.given(spec.key) else { return }
            guard let number = Int(text) else { throw invalid(text, for: spec.synopsis, in: parsed) }
            options[keyPath: property] = number
        }
    }

    /// An option that takes one of `choices` (every case unless given), as the type whose raw values they
    /// are: `required`, or else the property's initial value, which help shows as the default.
    public static func choice<Choice: RawRepresentable & CaseIterable>(
        _ property: WritableKeyPath<Options, Choice>, _ names: String..., name: String, noun: String,
        choices: [Choice] = Array(Choice.allCases), help: String, required: Bool = false
    ) -> Self where Choice.RawValue == String {
        let spec = OptionSpec.value(
            names, name: name, kind: .choice(choices.map(\.rawValue), noun: noun), help: help, required: required,
            defaultValue: required ? nil : Options()[keyPath: property].rawValue)
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            if let text = parsed.given(spec.key) {
                guard let choice = Choice(rawValue: text) else { throw invalid(text, for: spec.synopsis, in: parsed) }
                options[keyPath: property] = choice
            } else if required {
                throw parsed.usageError("missing \(spec.synopsis)")
            }
        }
    }

    /// An option that takes one of `choices` (every case unless given); nil when not given, which
    /// `defaultDescription` describes for help.
    public static func choice<Choice: RawRepresentable & CaseIterable>(
        _ property: WritableKeyPath<Options, Choice?>, _ names: String..., name: String, noun: String,
        choices: [Choice] = Array(Choice.allCases), help: String, defaultDescription: String? = nil
    ) -> Self where Choice.RawValue == String {
        let spec = OptionSpec.value(
            names, name: name, kind: .choice(choices.map(\.rawValue), noun: noun), help: help,
            defaultDescription: defaultDescription)
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            guard let text = parsed.given(spec.key) else { return }
            guard let choice = Choice(rawValue: text) else { throw invalid(text, for: spec.synopsis, in: parsed) }
            options[keyPath: property] = choice
        }
    }

    /// An option that takes no value: true when given.
    public static func flag(_ property: WritableKeyPath<Options, Bool>, _ names: String..., help: String) -> Self {
        let spec = OptionSpec(
            names: names, valueName: nil, kind: .text, help: help, isRequired: false, defaultValue: nil,
            isRepeatable: false, defaultDescription: nil)
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            options[keyPath: property] = parsed.flag(spec.key)
        }
    }

    /// An option that may be given more than once: every value, in order.
    public static func repeated(
        _ property: WritableKeyPath<Options, [String]>, _ names: String..., name: String, kind: ValueKind = .text,
        help: String, defaultDescription: String? = nil
    ) -> Self {
        let spec = OptionSpec.value(
            names, name: name, kind: kind, help: help, defaultDescription: defaultDescription, repeatable: true)
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            options[keyPath: property] = parsed.allValues(spec.key)
        }
    }

    /// A repeatable `NAME=VALUE` option: every pair, in order.
    public static func keyValues(
        _ property: WritableKeyPath<Options, [KeyValue]>, _ names: String..., name: String, help: String,
        defaultDescription: String? = nil
    ) -> Self {
        let spec = OptionSpec.value(
            names, name: name, kind: .keyValue, help: help, defaultDescription: defaultDescription, repeatable: true)
        return Self(options: [spec], argument: nil) { options, parsed, _ in
            options[keyPath: property] = parsed.pairs(spec.key).map { KeyValue(name: $0.name, value: $0.value) }
        }
    }
}
