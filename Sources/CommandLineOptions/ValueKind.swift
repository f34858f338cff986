import SystemSupport

/// What an option's or argument's value must be. The parser checks it, so a command reads values
/// that are already valid; help shows the allowed values.
public enum ValueKind: Sendable {
    /// Any text.
    case text
    /// A file or folder; anything but the empty string.
    case path
    /// A whole number, within `range` when one is given.
    case integer(ClosedRange<Int>?)
    /// One of `choices`; `noun` names the value in errors: "unknown format 'yaml'".
    case choice([String], noun: String)
    /// `NAME=VALUE` with a name that is not empty.
    case keyValue
    /// Text that `accepts` approves; `expectation` completes "--at takes …" in errors.
    case checked(expectation: String, accepts: @Sendable (String) -> Bool)

    /// Why `value`, given for `name` (an option's spelling or an argument's placeholder), is not
    /// acceptable; nil when it is.
    func problem(with value: String, for name: String, placeholder: String) -> String? {
        switch self {
        case .text:
            return nil
        case .path:
            return value.isEmpty ? "\(name) takes a path, not an empty string" : nil
        case .integer(let range):
            if let number = Int(value), range?.contains(number) ?? true { return nil }
            let expected = range.map { "\($0.lowerBound) to \($0.upperBound)" } ?? "a whole number"
            return "\(name) takes \(expected), not '\(value)'"
        case .choice(let choices, let noun):
            if choices.contains(value) { return nil }
            // Values are short words: one edit (or a third of the word) is a typo, more is another word.
            if let guess = Suggestion.closest(to: value, in: choices, maximumDistance: max(1, value.count / 3)) {
                return "unknown \(noun) '\(value)'; did you mean '\(guess)'?"
            }
            return "unknown \(noun) '\(value)'; use \(Self.list(choices))"
        case .keyValue:
            if let equals = value.firstIndex(of: "="), equals != value.startIndex { return nil }
            return "\(name) takes \(placeholder), not '\(value)'"
        case .checked(let expectation, let accepts):
            return accepts(value) ? nil : "\(name) takes \(expectation), not '\(value)'"
        }
    }

    /// The allowed values as help shows them ("xml, binary or json", "0 to 9"); nil when any will do.
    var allowedValues: String? {
        switch self {
        case .choice(let choices, _): return Self.list(choices)
        case .integer(let range?): return "\(range.lowerBound) to \(range.upperBound)"
        default: return nil
        }
    }

    /// "a", "a or b", "a, b or c".
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}
