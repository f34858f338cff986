import SystemSupport

/// Expands Xcode build-setting references in text: `$(NAME)`, `${NAME}`, `$$` for a literal `$`,
/// and the operators `:lower`, `:upper`, `:identifier`, `:rfc1034identifier`,
/// `:c99extidentifier` and `:default=TEXT`, chained left to right (`$(NAME:lower:identifier)`).
///
/// Unlike Xcode, an undefined reference without a default is an error, not an empty string.
/// A variable's value is expanded in turn, so variables may refer to each other; a cycle is
/// an error. `:default=` takes the rest of the reference (it may contain `:` and references of
/// its own, expanded only when used), and applies when the variable is undefined or empty.
public struct BuildSettingExpander {
    private let lookup: (String) throws -> String?

    /// `lookup` returns a variable's raw value, or nil when it is undefined; it throws (an `.expansion` ``Diagnostic``)
    /// for a variable that may not be read, which fails the expansion even where `:default=` is given.
    public init(lookup: @escaping (String) throws -> String?) { self.lookup = lookup }

    public init(variables: [String: String]) { self.init { variables[$0] } }

    /// True when `text` holds a reference (or `$$`) that expansion would change.
    public static func containsReference(_ text: String) -> Bool { text.contains("$") }

    /// The most references one text may expand, nested ones included: variables that each use the
    /// previous one four times make 4^n references of a few lines (they may all be empty).
    public static let maxReferences = 100_000
    /// The longest text an expansion may produce, in Unicode scalars (a 1 KB file expanded to 268 M).
    public static let maxLength = 1 << 20
    /// The most characters one expansion may copy, nested expansions included: a chain of variables
    /// that each hold the previous one copies a long value once per link.
    public static let maxCopied = 16 << 20

    /// The variables being expanded (for cycles), each variable's value once expanded (a variable
    /// expands to the same text wherever it is used, so it is expanded once), and what the
    /// expansion has spent so far.
    private struct State {
        var active: [String] = []
        var expanded: [String: String] = [:]
        var references = 0
        var copied = 0

        /// Counts `count` characters copied; fails past ``maxCopied``.
        mutating func copy(_ count: Int) throws {
            copied += count
            guard copied <= BuildSettingExpander.maxCopied else {
                throw Diagnostic.expansion(
                    "the expansion copies more than \(BuildSettingExpander.maxCopied) characters; "
                        + "variables refer to each other too often")
            }
        }
    }

    public func expand(_ text: String) throws -> String {
        var state = State()
        return try expand(Array(text.unicodeScalars)[...], active: &state)
    }

    private func expand(_ text: ArraySlice<Unicode.Scalar>, active: inout State) throws -> String {
        var output = String.UnicodeScalarView()
        var length = 0
        var index = text.startIndex
        while index < text.endIndex {
            guard length <= Self.maxLength else {
                throw Diagnostic.expansion(
                    "the expansion is longer than \(Self.maxLength) characters; variables refer to each other too often")
            }
            let scalar = text[index]
            guard scalar == "$", index + 1 < text.endIndex else {
                output.append(scalar)
                length += 1
                index += 1
                continue
            }
            let next = text[index + 1]
            if next == "$" {
                output.append("$")
                length += 1
                index += 2
                continue
            }
            guard next == "(" || next == "{" else {
                // Xcode also reads `$NAME`; we leave a bare `$` alone rather than guess.
                output.append(scalar)
                length += 1
                index += 1
                continue
            }
            let close: Unicode.Scalar = next == "(" ? ")" : "}"
            let bodyStart = index + 2
            var depth = 1
            var end = bodyStart
            while end < text.endIndex {
                let c = text[end]
                if c == "$", end + 1 < text.endIndex, text[end + 1] == "(" || text[end + 1] == "{" {
                    depth += 1
                    end += 2
                    continue
                }
                if c == ")" || c == "}" {
                    depth -= 1
                    if depth == 0 { break }
                }
                end += 1
            }
            guard end < text.endIndex, text[end] == close else {
                throw Diagnostic.expansion("unterminated reference '\(String(String.UnicodeScalarView(text[index...])))'")
            }
            let value = try reference(text[bodyStart..<end], active: &active).unicodeScalars
            let count = value.count
            try active.copy(count)
            output.append(contentsOf: value)
            length += count
            index = end + 1
        }
        guard length <= Self.maxLength else {
            throw Diagnostic.expansion("the expansion is longer than \(Self.maxLength) characters; variables refer to each other too often")
        }
        return String(output)
    }

    /// Splits a reference body at `:` signs that are not inside a nested reference.
    private func splitOperators(_ body: ArraySlice<Unicode.Scalar>) -> [ArraySlice<Unicode.Scalar>] {
        var parts: [ArraySlice<Unicode.Scalar>] = []
        var depth = 0
        var start = body.startIndex
        var index = body.startIndex
        while index < body.endIndex {
            let c = body[index]
            if c == "$", index + 1 < body.endIndex, body[index + 1] == "(" || body[index + 1] == "{" {
                depth += 1
                index += 2
                continue
            }
            if (c == ")" || c == "}") && depth > 0 { depth -= 1 }
            if c == ":" && depth == 0 {
                parts.append(body[start..<index])
                start = index + 1
                // `default=` swallows the rest, colons included.
                if body[start...].starts(with: "default=".unicodeScalars) {
                    parts.append(body[start...])
                    return parts
                }
            }
            index += 1
        }
        parts.append(body[start...])
        return parts
    }

    private func reference(_ body: ArraySlice<Unicode.Scalar>, active: inout State) throws -> String {
        active.references += 1
        guard active.references <= Self.maxReferences else {
            throw Diagnostic.expansion(
                "the expansion takes more than \(Self.maxReferences) references; variables refer to each other too often")
        }
        let parts = splitOperators(body)
        let name = try expand(parts[0], active: &active)
        guard !name.isEmpty else { throw Diagnostic.expansion("empty variable name in '$(\(String(String.UnicodeScalarView(body))))'") }
        var value: String?
        if let raw = try lookup(name) {
            if let expanded = active.expanded[name] {
                value = expanded
            } else {
                if active.active.contains(name) {
                    throw Diagnostic.expansion(
                        "$(\(name)) refers to itself (\((active.active + [name]).map { "$(\($0))" }.joined(separator: " -> ")))")
                }
                active.active.append(name)
                let expanded = try expand(Array(raw.unicodeScalars)[...], active: &active)
                active.active.removeLast()
                active.expanded[name] = expanded
                value = expanded
            }
        }
        for part in parts.dropFirst() {
            let op = String(String.UnicodeScalarView(part))
            if op.hasPrefix("default=") {
                if value?.isEmpty ?? true {
                    value = try expand(part.dropFirst("default=".count), active: &active)
                }
                continue
            }
            guard let current = value else { continue }
            switch op {
            case "lower": value = current.lowercased()
            case "upper": value = current.uppercased()
            case "identifier": value = BuildSettingExpander.identifier(current, allowUnicode: false)
            case "c99extidentifier": value = BuildSettingExpander.identifier(current, allowUnicode: true)
            case "rfc1034identifier":
                value = String(
                    String.UnicodeScalarView(
                        current.unicodeScalars.map { scalar in
                            scalar.isASCII
                                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == ".")
                                ? scalar : "-"
                        }))
            default:
                throw Diagnostic.expansion("unknown operator ':\(op)' in $(\(String(String.UnicodeScalarView(body))))")
            }
        }
        guard let value else {
            throw Diagnostic.expansion(
                "$(\(name)) is not defined (give it with --setting \(name)=VALUE, "
                    + "or add :default=VALUE)", undefinedVariable: name)
        }
        return value
    }

    /// Replaces characters that cannot appear in a C identifier with `_` and prefixes a leading digit.
    static func identifier(_ text: String, allowUnicode: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let isASCIIWord = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            let isUnicodeWord =
                allowUnicode && !scalar.isASCII
                && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil)
            scalars.append(isASCIIWord || isUnicodeWord ? scalar : "_")
        }
        if let first = scalars.first, ("0"..."9").contains(first) { scalars.insert("_", at: scalars.startIndex) }
        return String(scalars)
    }
}
