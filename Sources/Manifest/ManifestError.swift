import SystemSupport

/// A problem writing a manifest, an install page or an index: the file, then what is wrong.
public struct ManifestError: DiagnosticError, Equatable {
    public var message: String
    public var file: String?

    public init(_ message: String, file: String? = nil) {
        self.message = message
        self.file = file
    }

    /// The same error, naming `path` (unless it already names a file).
    public func inFile(_ path: String) -> ManifestError {
        var copy = self
        if copy.file == nil { copy.file = path }
        return copy
    }

    public var location: String? { nil }
    public var problem: String { message }
}
