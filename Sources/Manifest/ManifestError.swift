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

    /// `path` is an app folder (or an archive), which no device can download from a manifest: the
    /// one refusal `manifest` and `page` give it.
    public static func notAnIPA(_ path: String) -> ManifestError {
        ManifestError("is a folder, not an .ipa; package it first (adhocbuild package)", file: path)
    }

    public var location: String? { nil }
    public var problem: String { message }
}
