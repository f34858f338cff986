import PlistKit

/// A problem found with a user's files: an environment, a project, a version number.
///
/// `description` is one line in the same shape as `PlistError`: the file, then the key path,
/// then what is wrong, quoting the bad value. Warnings use the same type so checks can
/// report everything together.
public struct AdhocBuildError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Severity: String, Sendable { case error, warning }

    public var severity: Severity
    public var message: String
    public var file: String?
    public var keyPath: String?

    public init(_ message: String, file: String? = nil, keyPath: String? = nil, severity: Severity = .error) {
        self.message = message
        self.file = file
        self.keyPath = keyPath
        self.severity = severity
    }

    /// Wraps a plist error, keeping its place.
    public init(_ error: PlistError) {
        self.init(error.description)
    }

    public var description: String {
        var parts: [String] = []
        if let file { parts.append(file) }
        if let keyPath { parts.append(keyPath.isEmpty ? "at the root" : "at '\(keyPath)'") }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}

/// Several problems reported together (`env check`, `verify`), one per line.
public struct AdhocBuildErrors: Error, CustomStringConvertible, Sendable {
    public var problems: [AdhocBuildError]

    public init(_ problems: [AdhocBuildError]) { self.problems = problems }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
