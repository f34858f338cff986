import Foundation

/// Where a write to a path lands: what the path names once symbolic links are followed.
///
/// A write replaces a regular file by renaming a complete temporary file over it, and that
/// rename must hit the file itself: renaming over a symbolic link replaces the link (the file it
/// points to keeps its old bytes), and renaming over `/dev/null`, a FIFO or `/dev/stdout` swaps
/// the device or pipe for a plain file (as root, for the whole machine). So links are followed to
/// the file they name, and anything that is not a regular file is written straight into, as a
/// shell redirection writes into it.
public enum WriteDestination: Equatable, Sendable {
    /// A regular file, or nothing yet, at this path (links resolved): written under a temporary
    /// name beside it and renamed over it.
    case file(String)
    /// A device, FIFO, socket or terminal (`/dev/null`, `/dev/stdout`, `/dev/fd/N`, a named pipe):
    /// opened and written into; there is no old file to keep, so nothing is atomic.
    case stream

    /// Links followed at most this many times, as the kernel's own limit (`ELOOP`).
    static let linkLimit = 40

    /// The destination of a write to `path`. Throws when `path` is a folder, or a chain of links
    /// that does not end.
    public static func of(_ path: String) throws -> WriteDestination {
        var current = path
        for _ in 0...linkLimit {
            var info = stat()
            guard lstat(current, &info) == 0 else { return .file(current) }  // nothing there yet
            switch info.st_mode & S_IFMT {
            case S_IFREG: return .file(current)
            case S_IFDIR: throw FileError("is a folder, not a file", file: path)
            case S_IFLNK:
                guard let target = linkTarget(current) else { return .file(current) }
                // A link into /proc (/dev/stdout, /dev/fd/N) names an open file, often a pipe
                // ("pipe:[1234]", no path at all): what it is shows through the link.
                if target.hasPrefix("/proc/") || target.contains(":[") {
                    guard stat(current, &info) == 0 else {
                        throw FileError("cannot be written: \(SystemError.describe(errno))", file: path)
                    }
                    if info.st_mode & S_IFMT == S_IFREG, let resolved = realPath(current) { return .file(resolved) }
                    if info.st_mode & S_IFMT == S_IFDIR { throw FileError("is a folder, not a file", file: path) }
                    return .stream
                }
                current = target.hasPrefix("/") ? target : FileIO.split(current).folder + "/" + target
            default: return .stream
            }
        }
        throw FileError("cannot be written: too many levels of symbolic links", file: path)
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
