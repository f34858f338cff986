/// A file that cannot be read or written: the file, then what is wrong with it (`no such file`,
/// `is a folder, not a file`, `cannot be written: No space left on device`).
public struct FileError: DiagnosticError, Equatable {
    public var message: String
    public var file: String?

    public init(_ message: String, file: String? = nil) {
        self.message = message
        self.file = file
    }

    /// The same error, naming `path` (unless it already names a file).
    public func inFile(_ path: String) -> FileError {
        var copy = self
        if copy.file == nil { copy.file = path }
        return copy
    }

    /// A system call's failure on `file`: `cannot be written: ` and errno's text.
    public static func system(_ action: String, file: String? = nil, code: Int32) -> FileError {
        FileError("\(action): \(SystemError.describe(code))", file: file)
    }

    public var location: String? { nil }
    public var problem: String { message }
}
