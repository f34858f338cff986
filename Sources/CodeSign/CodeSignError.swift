import SystemSupport

/// A problem reading or checking a Mach-O file, an embedded signature or a resource seal.
///
/// `description` is one line: the file, the place (`byte 0x1234`, `slice arm64`, `CodeDirectory`), then
/// what is wrong. Hostile input always ends up here, never in a trap.
public struct CodeSignError: DiagnosticError, Equatable {
    public var file: String?
    public var location: String?
    public var problem: String
    public var hint: String?

    public init(_ problem: String, file: String? = nil, location: String? = nil, hint: String? = nil) {
        self.problem = problem
        self.file = file
        self.location = location
        self.hint = hint
    }

    /// An error about the bytes at `offset`, located as `byte 0x…`.
    public static func at(_ offset: Int, _ problem: String) -> CodeSignError {
        CodeSignError(problem, location: "byte 0x" + String(offset, radix: 16))
    }

    /// The same error, naming `path` unless a file is already named.
    public func inFile(_ path: String) -> CodeSignError {
        var copy = self
        if copy.file == nil { copy.file = path }
        return copy
    }

    /// The same error with `place` put in front of its location (`slice arm64: byte 0x40`).
    public func within(_ place: String) -> CodeSignError {
        var copy = self
        copy.location = copy.location.map { "\(place): \($0)" } ?? place
        return copy
    }
}
