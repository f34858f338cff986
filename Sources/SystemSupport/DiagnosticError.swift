/// The one shape of every error adhocbuild reports: the file, where in it, what is wrong, and what
/// the user can do about it.
///
/// Each module's errors conform (`PlistError`, `IPAError`, `AdhocBuildError`, …), so a caller can
/// let them through unchanged instead of re-wrapping them into strings, and the command line prints
/// every one of them the same way: ``report``.
public protocol DiagnosticError: Error, CustomStringConvertible, Sendable {
    /// The file concerned, when known.
    var file: String? { get }
    /// Where in the file: `12:4`, `byte 40`, `at 'Info:CFBundleIdentifier'`, an archive entry.
    var location: String? { get }
    /// What is wrong, quoting the bad value.
    var problem: String { get }
    /// What to do about it, when there is something to say (a limit that can be raised, …).
    var hint: String? { get }
}

extension DiagnosticError {
    public var hint: String? { nil }

    /// One line: the file, the place and the problem, joined by `: `.
    public var description: String {
        [file, location, problem].compactMap { $0 }.joined(separator: ": ")
    }

    /// The line printed for the user: ``description``, then the hint in parentheses.
    public var report: String { hint.map { "\(description) (\($0))" } ?? description }
}

/// Several problems reported together (a check that collects everything it finds).
public protocol DiagnosticErrorList: Error, Sendable {
    var diagnostics: [any DiagnosticError] { get }
}

/// The lines to print for any error: each diagnostic's ``DiagnosticError/report``, or one line for
/// errors from outside this package (a Foundation error's path and reason, never its dump).
public func reportLines(for error: any Error) -> [String] {
    switch error {
    case let list as any DiagnosticErrorList: return list.diagnostics.map(\.report)
    case let diagnostic as any DiagnosticError: return [diagnostic.report]
    default: return [FoundationError.line(error)]
    }
}

/// The hint of errors that exceeded a documented limit.
public let raiseLimitsHint = "limits can be raised: see Environment in 'adhocbuild --help'"
