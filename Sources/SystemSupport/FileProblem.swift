import Foundation

/// The kinds of problem with files and the system calls that read and write them (domain `file`).
public enum FileProblem: String, DiagnosticKind {
    /// A file that cannot be read or written as asked (`no such file`, `is a folder, not a file`).
    case io
    /// A system call failed; the diagnostic keeps its errno in ``Diagnostic/systemCode``.
    case system
    /// An input over the size adhocbuild reads of its kind.
    case limitExceeded

    public static let domain = "file"
}

extension DiagnosticCode {
    /// A problem with a file: `.file(.io)`.
    public static func file(_ kind: FileProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A file that cannot be read or written: the file, then what is wrong with it (`no such file`,
    /// `is a folder, not a file`, `cannot be written: No space left on device`).
    public static func io(_ message: String, file: String? = nil) -> Diagnostic {
        Diagnostic(.file(.io), message, file: file)
    }

    /// A system call that failed on `file`: `action` (`cannot be read`) and errno's text, the errno kept.
    public static func system(_ action: String, file: String? = nil, code: Int32 = errno) -> Diagnostic {
        var diagnostic = Diagnostic(.file(.system), "\(action): \(SystemError.describe(code))", file: file)
        diagnostic.systemCode = code
        return diagnostic
    }
}
