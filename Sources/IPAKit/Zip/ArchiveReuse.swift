import Foundation
import SystemSupport

extension ZipArchiveReader {
    /// The readers opened last through ``reusing(_:limits:)``, each with the identity its file had
    /// when it was opened.
    private static let recent = Locked<[(path: String, identity: FileIdentity, limits: Limits, reader: ZipArchiveReader)]>([])
    /// How many readers are kept for reuse: a command reads its input and its output.
    private static let recentCount = 2

    /// Opens the archive at `path` with `limits`, or hands back the reader opened on it last, when
    /// the file is still the one it read (same device, inode, size and change time: any write or
    /// rename over it changes one) and the limits are the same. A command that reads one archive in
    /// several steps (checks, unpack, page) reads and checks its directory once.
    public static func reusing(_ path: String, limits: Limits = .standard) throws -> ZipArchiveReader {
        // Taken before opening: a file changed while it is opened is kept under its old identity,
        // which it no longer has, so the next call opens it afresh.
        guard let identity = FileIdentity(path: path) else { return try ZipArchiveReader(path: path, limits: limits) }
        let known = recent.withLock { readers in
            readers.first { $0.path == path && $0.identity == identity && $0.limits == limits }?.reader
        }
        if let known { return known }
        let reader = try ZipArchiveReader(path: path, limits: limits)
        recent.withLock { readers in
            readers.removeAll { $0.path == path }
            readers.append((path, identity, limits, reader))
            if readers.count > recentCount { readers.removeFirst(readers.count - recentCount) }
        }
        return reader
    }
}
