import Foundation
import SystemSupport

/// The digests of files a copy wrote, so sealing the copy does not read them again: each file's
/// SHA-1 and SHA-256 keyed by its path in the copy, with the identity (device, inode, size, change
/// time) it had when written. A file changed since (an executable signed, a profile embedded) no
/// longer matches its identity and is hashed afresh.
///
/// Mach-O files are not hashed ahead (``skipsHashing(_:)``): the signer writes every bundle's
/// executable and every loose dylib again before a seal covers it, and never seals a bundle's own
/// executable; any other is hashed when the seal is made.
public final class DigestCache: Sendable {
    typealias Identity = FileIdentity

    /// Each file's identity (nil: left in its archive, no file holds it) and digests, by path.
    private let entries = Locked<[String: (identity: Identity?, content: BundleResource.Content)]>([:])

    public init() {}

    /// Records the digests of the file at `path`, or (`identity` nil) of a file left in its archive
    /// that would be at `path` (``leftInArchive(under:)``).
    func record(_ path: String, identity: Identity?, content: BundleResource.Content) {
        entries.withLock { $0[path] = (identity, content) }
    }

    /// The digests of the file at `path` if it is still the one recorded.
    func content(of path: String) -> BundleResource.Content? {
        guard let entry = entries.withLock({ $0[path] }), let identity = entry.identity, Identity(path: path) == identity else {
            return nil
        }
        return entry.content
    }

    /// The digests of the file at `path`, whose `lstat` is `info`, if it is still the one recorded.
    func content(of path: String, info: stat) -> BundleResource.Content? {
        guard let entry = entries.withLock({ $0[path] }), let identity = entry.identity, Identity(info) == identity else { return nil }
        return entry.content
    }

    /// The digests of `types` (SHA-1, SHA-256) of the file at `path` as it is now, when they are
    /// known: it is the file hashed (same identity), or nothing is there and the file was left in its
    /// archive (``leftInArchive(under:)``). `listedAsLeft`: the caller found nothing at `path` when
    /// it listed its folder, and it is not looked for again.
    public func knownDigests(at path: String, types: [HashType], listedAsLeft: Bool = false) -> [HashType: [UInt8]]? {
        guard let entry = entries.withLock({ $0[path] }) else { return nil }
        let content = entry.identity == nil ? (listedAsLeft || FileIO.isAbsent(path) ? entry.content : nil) : self.content(of: path)
        guard case .file(let sha1, let sha256)? = content else { return nil }
        var digests: [HashType: [UInt8]] = [:]
        for type in types {
            switch type {
            case .sha1: digests[type] = sha1
            case .sha256: digests[type] = sha256
            default: return nil
            }
        }
        return digests
    }

    /// The files under the folder `folder` that were left in their archive, not written (see
    /// ``ZipArchiveReader/LeavingRule``): their paths relative to `folder` and their digests, in no
    /// particular order. A sealer adds those no file has taken the place of.
    func leftInArchive(under folder: String) -> [(relative: String, content: BundleResource.Content)] {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return entries.withLock { entries in
            entries.compactMap { path, entry in
                entry.identity == nil && path.hasPrefix(prefix) ? (String(path.dropFirst(prefix.count)), entry.content) : nil
            }
        }
    }

    /// The paths of the files whose digests are recorded (as they were recorded: some may have
    /// changed since), in no particular order.
    public var hashedPaths: [String] { entries.withLock { Array($0.keys) } }

    /// How many files have digests recorded.
    public var count: Int { entries.withLock { $0.count } }

    /// Whether a file whose first bytes are `prefix` is left for the seal to hash: a Mach-O file.
    static func skipsHashing(_ prefix: UnsafeRawBufferPointer) -> Bool { MachOFile.looksLikeMachO(prefix.prefix(4)) }
}

/// Copies a bundle folder for signing in one pass over its bytes: every regular file is read once,
/// written to the copy and hashed (SHA-1 and SHA-256) from the same buffer, on all cores; folders
/// and symbolic links are recreated, permissions kept. Files in `skipping` (the executables the
/// signer writes from the original anyway) are left out.
///
/// With `linking`, each regular file is hard-linked into the copy instead of written (and only read,
/// to hash it), falling back to a copy where the file system refuses the link (another file system,
/// a file of another user's under `protected_hardlinks`). Such a copy shares its files with the
/// original: whoever changes one must replace it (a new file renamed over it, as ``AtomicFileWriter``
/// does), never write or `chmod` it in place.
public enum HashingCopy {
    static let chunkSize = 1 << 20

    /// Copies `source` to `destination` (which must not exist) and returns the digests of what it
    /// wrote (none when `hashing` is off); with `linking`, hard-links the files it can.
    @discardableResult
    public static func copy(
        _ source: String, to destination: String, skipping: Set<String> = [], linking: Bool = false, hashing: Bool = true
    ) throws -> DigestCache {
        let cache = DigestCache()
        var linking = linking
        let manager = FileManager.default
        // The copy is a work folder (made under the lock an interrupt takes before removing such folders).
        try WorkFiles.creating { try makeFolder(destination, like: source) }
        let pool = WorkerPool(label: "adhocbuild.copy", capacity: 2 * Processors.usable)
        var folders: [(String, mode_t)] = []
        do {
            // Regular files are known from their folders' listings: one is linked with no `lstat`
            // (one is made only when it has to be copied, for its mode).
            try FolderWalk.walkListing(source) { relative, from, entry in
                let to = destination + "/" + relative
                let info: stat
                switch entry {
                case .regularFile:
                    if skipping.contains(relative) { return !pool.hasFailed }
                    if linking, try link(from, to: to, pool: pool, cache: hashing ? cache : nil, linking: &linking) {
                        return !pool.hasFailed
                    }
                    var statted = stat()
                    guard lstat(from, &statted) == 0 else {
                        throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))", file: from)
                    }
                    info = statted
                case .other(let statted):
                    info = statted
                }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    guard mkdir(to, 0o700) == 0 else {
                        throw Diagnostic.codeSign(.unreadable, "cannot be created: \(SystemError.describe(errno))", file: to)
                    }
                    folders.append((to, info.st_mode & 0o7777))
                case S_IFLNK:
                    let target = try manager.destinationOfSymbolicLink(atPath: from)
                    guard symlink(target, to) == 0 else {
                        throw Diagnostic.codeSign(.unreadable, "cannot be created: \(SystemError.describe(errno))", file: to)
                    }
                case S_IFREG:
                    if skipping.contains(relative) { break }
                    if case .other = entry, linking, try link(from, to: to, pool: pool, cache: hashing ? cache : nil, linking: &linking) {
                        break
                    }
                    let mode = info.st_mode & 0o7777
                    // Made here, one at a time: creating a name locks its folder, and workers creating
                    // files side by side in one folder spend more time waiting on that lock than copying.
                    let created = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                    guard created >= 0 else {
                        throw Diagnostic.codeSign(.unreadable, "cannot be written: \(SystemError.describe(errno))", file: to)
                    }
                    close(created)
                    pool.submit { try copyFile(from, to: to, mode: mode, cache: hashing ? cache : nil) }
                default:
                    throw Diagnostic.codeSign(.bundleInvalid, "is neither a file, a folder nor a link; an app holds only those", file: from)
                }
                return !pool.hasFailed
            }
        } catch {
            // The jobs under way finish before the error is reported.
            _ = try? pool.wait()
            throw error
        }
        try pool.wait()
        for (folder, mode) in folders.reversed() { chmod(folder, mode) }
        return cache
    }

    /// Hard-links the file `from` as `to`, handing it to `pool` to be hashed into `cache` (when
    /// given); false when the file system refuses the link for a reason a copy gets past (then
    /// the file is copied instead, and after an `EXDEV` so is every other one: `linking` turns off).
    private static func link(_ from: String, to: String, pool: WorkerPool, cache: DigestCache?, linking: inout Bool) throws -> Bool {
        if Glibc.link(from, to) == 0 {
            if let cache { pool.submit { try hashFile(to, cache: cache) } }
            return true
        }
        let failure = errno
        // Not on this file system (nor, for EXDEV, any file after this one): copied.
        guard [EXDEV, EPERM, EMLINK, EACCES, ENOTSUP, EOPNOTSUPP].contains(failure) else {
            throw Diagnostic.codeSign(.unreadable, "cannot be created: \(SystemError.describe(failure))", file: to)
        }
        if failure == EXDEV { linking = false }
        return false
    }

    static func makeFolder(_ path: String, like source: String) throws {
        var info = stat()
        guard stat(source, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw Diagnostic.codeSign(.unreadable, "is not a folder", file: source)
        }
        guard mkdir(path, info.st_mode & 0o7777 | 0o700) == 0 else {
            throw Diagnostic.codeSign(.unreadable, "cannot be created: \(SystemError.describe(errno))", file: path)
        }
    }

    /// Hashes the file at `path` (a link to the original) in chunks, recording its identity as it is now.
    static func hashFile(_ path: String, cache: DigestCache) throws {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))", file: path) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))", file: path)
        }
        let sha1 = DigestStream(.sha1), sha256 = DigestStream(.sha256)
        var first = true
        let hashed = try readChunks(input, path: path, size: Int64(info.st_size)) { piece in
            if first && DigestCache.skipsHashing(piece) { return false }
            first = false
            sha1.update(piece)
            sha256.update(piece)
            return true
        }
        guard hashed else { return }
        cache.record(path, identity: DigestCache.Identity(info), content: .file(sha1: sha1.finish(), sha256: sha256.finish()))
    }

    /// Reads the open file `input` (named `path`, `size` bytes long when it was opened) in chunks,
    /// handing each to `body`, to its end or until `body` returns false; returns whether it reached
    /// the end. The buffer is no larger than the file needs: a chunk-sized one for each of thousands
    /// of small files was a fresh mapping, mapped and faulted in and unmapped, for each.
    @discardableResult
    private static func readChunks(_ input: Int32, path: String, size: Int64, _ body: (UnsafeRawBufferPointer) throws -> Bool) throws
        -> Bool
    {
        let capacity = Int(max(1, min(Int64(chunkSize), size + 1)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: FileIO.readBufferAlignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer.baseAddress, capacity)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))", file: path) }
            if count == 0 { return true }
            guard try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return false }
        }
    }

    /// Copies one file in chunks into the empty file `destination` (made by the caller), hashing
    /// each chunk as it goes out (unless `cache` is nil).
    static func copyFile(_ source: String, to destination: String, mode: mode_t, cache: DigestCache?) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))", file: source) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CLOEXEC)
        guard output >= 0 else {
            throw Diagnostic.codeSign(.unreadable, "cannot be written: \(SystemError.describe(errno))", file: destination)
        }
        defer { close(output) }
        var sha1 = cache.map { _ in DigestStream(.sha1) }, sha256 = cache.map { _ in DigestStream(.sha256) }
        var first = true
        var sourceInfo = stat()
        let size = fstat(input, &sourceInfo) == 0 ? Int64(sourceInfo.st_size) : Int64(chunkSize)
        try readChunks(input, path: source, size: size) { piece in
            // FileIO's error says `cannot be written: <reason>` already; said once, naming the file.
            do { try FileIO.writeAll(output, piece) } catch let error as Diagnostic where error.is(FileProblem.self) {
                throw Diagnostic.codeSign(.unreadable, error.message, file: destination)
            }
            if first && DigestCache.skipsHashing(piece) { (sha1, sha256) = (nil, nil) }
            first = false
            sha1?.update(piece)
            sha256?.update(piece)
            return true
        }
        fchmod(output, mode)
        var info = stat()
        guard fstat(output, &info) == 0 else {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))", file: destination)
        }
        if let cache, let sha1, let sha256 {
            cache.record(destination, identity: DigestCache.Identity(info), content: .file(sha1: sha1.finish(), sha256: sha256.finish()))
        }
    }
}
