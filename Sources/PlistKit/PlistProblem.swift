import SystemSupport

/// The kinds of problem reading, writing or addressing a plist (domain `plist`).
public enum PlistProblem: String, DiagnosticKind {
    /// The bytes are not a well-formed plist of the detected format.
    case malformed
    /// A documented limit (depth, size, count) was exceeded.
    case limitExceeded
    /// The value cannot be represented in the requested output format.
    case unrepresentable
    /// A key path does not resolve, or points at the wrong kind of value.
    case keyPath
    /// Reading or writing the file itself failed.
    case io

    public static let domain = "plist"
}

extension DiagnosticCode {
    /// A plist problem: `.plist(.malformed)`.
    public static func plist(_ kind: PlistProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A plist problem: the file, then the place (`3:7`, `byte 40`), then the key path of the value
    /// concerned (PlistBuddy notation, `at 'CFBundleVersion'`), then what is wrong, quoting the bad value.
    /// An exceeded limit gets the hint that limits can be raised.
    public static func plist(
        _ kind: PlistProblem, _ message: String, at place: Place? = nil, keyPath: String? = nil, file: String? = nil
    ) -> Diagnostic {
        let places = [place, keyPath.map { .keyPath($0) }].compactMap { $0 }
        return Diagnostic(
            .plist(kind), message, file: file, places: places, hint: kind == .limitExceeded ? raiseLimitsHint : nil)
    }

    /// The kind of plist problem, nil for a diagnostic of another domain.
    public var plistProblem: PlistProblem? { self.is(PlistProblem.self) ? PlistProblem(rawValue: code.kind) : nil }
}
