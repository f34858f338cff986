import PlistKit
import SystemSupport

/// A problem found with a user's files: an environment, a project, a version number.
///
/// `description` is one line in the same shape as `PlistError`: the file, then the key path,
/// then what is wrong, quoting the bad value. Warnings use the same type so checks can
/// report everything together.
public struct AdhocBuildError: DiagnosticError, Equatable {
    public enum Severity: String, Sendable { case error, warning }

    public var severity: Severity
    public var message: String
    public var file: String?
    public var keyPath: String?
    /// A place in the file that is not a key path (`3:14` for a line and column, `byte 12`), when the
    /// problem came from reading the file; it is the location then.
    public var position: String?
    /// What to do about it, printed after the line (how to raise a limit, say).
    public var hint: String?

    public init(_ message: String, file: String? = nil, keyPath: String? = nil, severity: Severity = .error) {
        self.message = message
        self.file = file
        self.keyPath = keyPath
        self.severity = severity
    }

    /// `error` (a file that could not be read or parsed) as a problem to collect with the others,
    /// keeping its file, position and message.
    public init(collecting error: any DiagnosticError) {
        self.init(error.problem, file: error.file)
        position = error.location
        hint = error.hint
    }

    public var location: String? { position ?? keyPath.map { $0.isEmpty ? "at the root" : "at '\($0)'" } }
    public var problem: String { message }
}

/// Several problems reported together (`env check`, `verify`), one per line.
public struct AdhocBuildErrors: DiagnosticErrorList, CustomStringConvertible {
    public var problems: [AdhocBuildError]

    public init(_ problems: [AdhocBuildError]) { self.problems = problems }

    public var diagnostics: [any DiagnosticError] { problems }
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
