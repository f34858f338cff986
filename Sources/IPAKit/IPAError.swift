import SystemSupport

/// A problem packaging, reading or checking an app, an ipa or a provisioning profile.
///
/// `description` is one line: the file, then the entry (or key path), then what is wrong.
public struct IPAError: DiagnosticError, Equatable {
    public var message: String
    public var file: String?
    /// The entry inside an archive or bundle, when the problem is with one.
    public var entry: String?
    /// Whether a documented limit (`ZipArchiveReader.Limits`) was exceeded, rather than the input being wrong.
    public var isLimitExceeded: Bool

    public init(_ message: String, file: String? = nil, entry: String? = nil, isLimitExceeded: Bool = false) {
        self.message = message
        self.file = file
        self.entry = entry
        self.isLimitExceeded = isLimitExceeded
    }

    public func inFile(_ path: String) -> IPAError {
        var copy = self
        if copy.file == nil { copy.file = path }
        return copy
    }

    public var location: String? { entry }
    public var problem: String { message }
    public var hint: String? { isLimitExceeded ? raiseLimitsHint : nil }
}
