import CLinux
import Foundation

extension FileIO {
    /// Swaps the files or folders at `a` and `b` (both must exist) in one step, so that no moment,
    /// not even a kill, finds neither at `b`: a folder replaced this way is never only in a temporary
    /// place a later run would remove as a leftover. Where the file system cannot swap in one step,
    /// `b` is moved aside under a temporary name, `a` renamed to `b` and the old `b` renamed to `a`.
    /// Errors name `b` (what the user sees replaced) with the system's reason.
    public static func exchange(_ a: String, _ b: String) throws {
        // An interrupt waits: while `b` is aside, the clean-up would remove it as a work file.
        try Interruption.pointOfNoReturn(writing: b) { try swap(a, b) }
    }

    private static func swap(_ a: String, _ b: String) throws {
        if adhocbuild_exchange(a, b) == 0 { return }
        let code = errno
        guard code == EINVAL || code == ENOSYS || code == ENOTSUP else {
            throw Diagnostic.system("cannot be replaced", file: b, code: code)
        }
        let aside = temporaryPath(for: b)
        guard rename(b, aside) == 0 else { throw Diagnostic.system("cannot be replaced", file: b, code: errno) }
        guard rename(a, b) == 0 else {
            let failure = errno
            _ = rename(aside, b)
            throw Diagnostic.system("cannot be replaced", file: b, code: failure)
        }
        guard rename(aside, a) == 0 else { throw Diagnostic.system("cannot be replaced", file: b, code: errno) }
    }
}
