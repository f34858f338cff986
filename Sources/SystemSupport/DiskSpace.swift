import Foundation

/// A write that failed because the disk it went to is full (`ENOSPC`, or `EDQUOT`: the user's quota on
/// it is used up), told as such: the output and the disk are named, not the file that was being written
/// (often a temporary one the user never sees, or a copy named like the input).
public enum DiskSpace {
    /// The errno values that mean "the disk is full".
    static let fullCodes: [Int32] = [ENOSPC, EDQUOT]

    /// Whether `error` is, or was made from, a full disk: a diagnostic with its errno, Foundation's
    /// out-of-space error (or one whose underlying POSIX error is), or any error whose text carries the
    /// system's words for it (errors that wrap a system call's failure keep `strerror`'s text).
    public static func isFull(_ error: any Error) -> Bool {
        if let code = (error as? Diagnostic)?.systemCode { return fullCodes.contains(code) }
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
        if nsError.domain == NSPOSIXErrorDomain, fullCodes.contains(Int32(nsError.code)) { return true }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying !== nsError, isFull(underlying) { return true }
        let text = (error as? Diagnostic)?.description ?? "\(error)"
        return fullCodes.contains { text.contains(SystemError.describe($0)) }
    }

    /// The one-line error for a write into `output` (a file or folder the user named) that found the
    /// disk full: `no space left on the disk holding dist (the file system mounted at /mnt/builds)`.
    public static func fullError(writing output: String) -> Diagnostic {
        Diagnostic.io("no space left on the disk holding \(output) (the file system mounted at \(mountPoint(of: output)))")
    }

    /// The folder the file system holding `path` is mounted at: the highest folder above `path` (or
    /// above the nearest of its folders that exists) on the same device.
    public static func mountPoint(of path: String) -> String {
        var (folder, name) = FileIO.split(path)
        var current = name == "/" ? "/" : (folder == "/" ? "" : folder) + "/" + name
        var info = stat()
        while stat(current, &info) != 0, current != "/" { current = FileIO.split(current).folder }
        let device = info.st_dev
        while current != "/" {
            (folder, name) = FileIO.split(current)
            var above = stat()
            guard stat(folder, &above) == 0, above.st_dev == device else { break }
            current = folder
        }
        return current
    }
}
