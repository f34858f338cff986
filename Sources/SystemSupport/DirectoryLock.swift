import Foundation

/// An exclusive `flock` on the folder itself, held while `body` runs: no lock file is left in DIST
/// to be published with it.
public enum DirectoryLock {
    public static func withLock<T>(_ folder: String, _ body: () throws -> T) throws -> T {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Diagnostic.system("cannot be locked", file: folder) }
        defer { close(fd) }
        guard retryingInterrupted({ flock(fd, LOCK_EX) }) == 0 else { throw Diagnostic.system("cannot be locked", file: folder) }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
