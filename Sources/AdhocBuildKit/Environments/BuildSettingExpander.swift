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
    /// Why a text could not be expanded.
    public struct Failure: DiagnosticError, Equatable {
        public var message: String
        /// The variable, when the failure is a reference to one that is not defined.
        public var undefinedVariable: String?
        public var file: String? { nil }
        public var location: String? { nil }
        public var problem: String { message }

        public init(message: String, undefinedVariable: String? = nil) {
            self.message = message
            self.undefinedVariable = undefinedVariable
        }
    }

    private let lookup: (String) throws -> String?

    /// `lookup` returns a variable's raw value, or nil when it is undefined; it throws (a ``Failure``)
    /// for a variable that may not be read, which fails the expansion even where `:default=` is given.
    public init(lookup: @escaping (String) throws -> String?) { self.lookup = lookup }

    public init(variables: [String: String]) { self.init { variables[$0] } }

    /// True when `text` holds a reference (or `$$`) that expansion would change.
    public static func containsReference(_ text: String) -> Bool { text.contains("$") }

    public func expand(_ text: String) throws -> String {
        var active: [String] = []
        return try expand(Array(text.unicodeScalars)[...], active: &active)
    }

    private func expand(_ text: ArraySlice<Unicode.Scalar>, active: inout [String]) throws -> String {
        var output = String.UnicodeScalarView()
        var index = text.startIndex
        while index < text.endIndex {
            let scalar = text[index]
            guard scalar == "$", index + 1 < text.endIndex else {
                output.append(scalar)
                index += 1
                continue
            }
            let next = text[index + 1]
            if next == "$" {
                output.append("$")
                index += 2
                continue
            }
            guard next == "(" || next == "{" else {
                // Xcode also reads `$NAME`; we leave a bare `$` alone rather than guess.
                output.append(scalar)
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
                throw Failure(message: "unterminated reference '\(String(String.UnicodeScalarView(text[index...])))'")
            }
            output.append(contentsOf: try reference(text[bodyStart..<end], active: &active).unicodeScalars)
            index = end + 1
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

    private func reference(_ body: ArraySlice<Unicode.Scalar>, active: inout [String]) throws -> String {
        let parts = splitOperators(body)
        let name = try expand(parts[0], active: &active)
        guard !name.isEmpty else { throw Failure(message: "empty variable name in '$(\(String(String.UnicodeScalarView(body))))'") }
        var value: String?
        if let raw = try lookup(name) {
            if active.contains(name) {
                throw Failure(message: "$(\(name)) refers to itself (\((active + [name]).map { "$(\($0))" }.joined(separator: " -> ")))")
            }
            active.append(name)
            value = try expand(Array(raw.unicodeScalars)[...], active: &active)
            active.removeLast()
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
                throw Failure(message: "unknown operator ':\(op)' in $(\(String(String.UnicodeScalarView(body))))")
            }
        }
        guard let value else {
            throw Failure(
                message: "$(\(name)) is not defined (give it with --setting \(name)=VALUE, "
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
