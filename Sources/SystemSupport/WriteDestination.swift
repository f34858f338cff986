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
    /// A regular file, or nothing yet, at this path (links resolved, its folder as the kernel
    /// finds it): written under a temporary name beside it and renamed over it.
    case file(String)
    /// A device, FIFO, socket or terminal (`/dev/null`, a named pipe): opened and written into;
    /// there is no old file to keep, so nothing is atomic.
    case stream
    /// One of this process's open descriptors (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`):
    /// written through a copy of it, so the shell's redirection holds (`>>` appends, and a file
    /// behind it is written into, not replaced).
    case descriptor(Int32)

    /// Links followed at most this many times, as the kernel's own limit (`ELOOP`).
    static let linkLimit = 40

    /// The destination of a write to `path`. Throws when `path` is a folder, or a chain of links
    /// that does not end.
    public static func of(_ path: String) throws -> WriteDestination {
        var current = path
        for _ in 0...linkLimit {
            if let descriptor = openDescriptor(named: current) { return .descriptor(descriptor) }
            var info = stat()
            guard lstat(current, &info) == 0 else { return .file(physical(current)) }  // nothing there yet
            switch info.st_mode & S_IFMT {
            case S_IFREG: return .file(physical(current))
            case S_IFDIR: throw Diagnostic.io("is a folder, not a file", file: path)
            case S_IFLNK:
                guard let target = FileIO.linkTarget(current), !target.isEmpty else { return .file(physical(current)) }
                // A relative target is read from the link's own folder, as the kernel finds it.
                current = target.hasPrefix("/") ? target : physical(folder(of: current)) + "/" + target
            default: return .stream
            }
        }
        throw Diagnostic.io("cannot be written: too many levels of symbolic links", file: path)
    }

    /// Opens what `path` names for writing into it: a copy of the descriptor it names, or the
    /// device or pipe itself. For destinations that are not files (``stream`` and ``descriptor``).
    public static func openForWriting(_ path: String) throws -> Int32 {
        let fd: Int32
        if case .descriptor(let number) = try of(path) {
            fd = fcntl(number, F_DUPFD_CLOEXEC, 0)
        } else {
            fd = open(path, O_WRONLY | O_CLOEXEC)
        }
        guard fd >= 0 else { throw Diagnostic.system("cannot be written", file: path, code: errno) }
        return fd
    }

    /// The descriptor number a path of this process's descriptor table names (`/dev/stdout`,
    /// `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, `/proc/<this pid>/fd/N`), when it is open.
    static func openDescriptor(named path: String) -> Int32? {
        let number: Substring
        switch path {
        case "/dev/stdout": number = "1"
        case "/dev/stderr": number = "2"
        default:
            let prefixes = ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/"]
            guard let prefix = prefixes.first(where: path.hasPrefix) else { return nil }
            number = path.dropFirst(prefix.count)
        }
        guard !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber), let value = Int32(number),
            fcntl(value, F_GETFD) != -1
        else { return nil }
        return value
    }

    /// The folder part of `path` as written (`..` left for the kernel), `.` for a bare name.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` with its folder resolved by the kernel (links and `..` followed), so a temporary file
    /// made beside it and renamed over it land where the path itself does; `path` as it is when
    /// the folder does not exist (the write then fails naming it).
    static func physical(_ path: String) -> String {
        guard let resolved = FileIO.realPath(folder(of: path)) else { return path }
        let name = path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...]
        return (resolved == "/" ? "" : resolved) + "/" + name
    }
}
