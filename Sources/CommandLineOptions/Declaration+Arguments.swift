/// The argument declarations, in the order the arguments come; only the last may be variadic.
extension Declaration {
    /// An argument that must be given.
    public static func argument(_ property: WritableKeyPath<Options, String>, _ name: String, help: String, kind: ValueKind = .text)
        -> Self
    {
        let spec = ArgumentSpec(name: name, help: help, kind: kind)
        return Self(options: [], argument: spec) { options, parsed, position in
            guard let text = parsed.positional(position) else { throw parsed.usageError("missing \(name)") }
            options[keyPath: property] = text
        }
    }

    /// An argument that may be left out: nil then.
    public static func argument(_ property: WritableKeyPath<Options, String?>, _ name: String, help: String, kind: ValueKind = .text)
        -> Self
    {
        let spec = ArgumentSpec(name: name, help: help, kind: kind, isOptional: true)
        return Self(options: [], argument: spec) { options, parsed, position in
            options[keyPath: property] = parsed.positional(position)
        }
    }

    /// An argument that must be one of `Choice`'s raw values; `noun` names it in errors.
    public static func argument<Choice: RawRepresentable & CaseIterable>(
        _ property: WritableKeyPath<Options, Choice>, _ name: String, noun: String, help: String
    ) -> Self where Choice.RawValue == String {
        let spec = ArgumentSpec(name: name, help: help, kind: .choice(Choice.allCases.map(\.rawValue), noun: noun))
        return Self(options: [], argument: spec) { options, parsed, position in
            guard let text = parsed.positional(position) else { throw parsed.usageError("missing \(name)") }
            guard let choice = Choice(rawValue: text) else { throw invalid(text, for: name, in: parsed) }
            options[keyPath: property] = choice
        }
    }

    /// The last argument, taking every remaining one: at least one unless `isOptional`.
    public static func arguments(
        _ property: WritableKeyPath<Options, [String]>, _ name: String, help: String, isOptional: Bool = false
    ) -> Self {
        let spec = ArgumentSpec(name: name, help: help, isOptional: isOptional, isVariadic: true)
        return Self(options: [], argument: spec) { options, parsed, position in
            options[keyPath: property] = Array(parsed.positionals.dropFirst(position))
        }
    }
}
