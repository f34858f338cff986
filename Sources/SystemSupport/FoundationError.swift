import Foundation

/// Foundation's file errors (`FileManager`, `Data(contentsOf:)`, `FileHandle`) told in one line.
///
/// Printed as they are, they are a dump: `Error Domain=NSCocoaErrorDomain Code=514 "The file name is
/// invalid." UserInfo={NSFilePath=…, NSUnderlyingError=…}`. Here they become the file and what
/// went wrong, in errno's words when the system gave a reason (`File name too long`), else in the
/// Cocoa code's.
public enum FoundationError {
    /// Whether `error` is one of Foundation's own (Cocoa or POSIX domain), which has no line of its own to print.
    public static func isFoundationError(_ error: any Error) -> Bool {
        guard !(error is Diagnostic), !(error is Diagnostics) else { return false }
        let domain = (error as NSError).domain
        return domain == NSCocoaErrorDomain || domain == NSPOSIXErrorDomain
    }

    /// `error` as a ``Diagnostic``: `action` (`cannot be copied`) and the reason, naming `file`, or
    /// the path the error carries when `file` is nil.
    public static func fileError(_ error: any Error, action: String, file: String? = nil) -> Diagnostic {
        Diagnostic.io("\(action): \(reason(error))", file: file ?? path(of: error))
    }

    /// The path a Foundation error names (`NSFilePath`, else its URL's), if any.
    public static func path(of error: any Error) -> String? {
        let info = (error as NSError).userInfo
        if let path = info[NSFilePathErrorKey] as? String { return path }
        return (info[NSURLErrorKey] as? URL)?.path
    }

    /// Why the operation failed, in a few words: the system's reason when there is one, else what
    /// the Cocoa code means.
    public static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return SystemError.describe(Int32(error.code)) }
        // On Linux the underlying error is kept as a Swift error (a POSIXError), not an NSError.
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error {
            let underlying = underlying as NSError
            if underlying.domain == NSPOSIXErrorDomain { return SystemError.describe(Int32(underlying.code)) }
        }
        guard error.domain == NSCocoaErrorDomain else { return UntrustedText.line(error.localizedDescription) }
        switch CocoaError.Code(rawValue: error.code) {
        case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or folder"
        case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
        case .fileReadInvalidFileName, .fileWriteInvalidFileName: return "the name is not valid here (too long, or not UTF-8)"
        case .fileWriteFileExists: return "something with that name is there already"
        case .fileWriteOutOfSpace: return "no space left on the device"
        case .fileWriteVolumeReadOnly: return "the file system is read-only"
        case .fileReadTooLarge: return "too large to read"
        case .fileReadCorruptFile: return "its contents are damaged"
        case .fileReadInapplicableStringEncoding, .fileReadUnknownStringEncoding, .fileWriteInapplicableStringEncoding:
            return "its text is not in an encoding it can be read as"
        case .fileLocking: return "it is locked"
        case .fileReadUnknown, .fileWriteUnknown: return "Foundation gives no reason (its error \(error.code))"
        default: return "Foundation's error \(error.code)"
        }
    }

    /// One line for any error: a diagnostic's report, a Foundation error's path and reason, anything
    /// else its description with line ends shown, not obeyed.
    public static func line(_ error: any Error) -> String {
        if let diagnostic = error as? Diagnostic { return diagnostic.report }
        if let list = error as? Diagnostics { return list.items.map(\.report).joined(separator: "; ") }
        if isFoundationError(error) {
            return [path(of: error), reason(error)].compactMap { $0 }.joined(separator: ": ")
        }
        return UntrustedText.line("\(error)")
    }
}
