import Foundation
import SystemSupport

/// Sees the bytes of each file as an archive is unpacked, to compute something of them on the way
/// (the digests a signature needs) so nobody reads the files again.
public protocol UnpackedFileObserver: Sendable {
    /// Called on the thread that writes `path`, before its first byte: the watch that is handed
    /// its bytes in order and then told it is complete.
    func watch(_ path: String) -> any UnpackedFileWatch
}

/// One file's share of an ``UnpackedFileObserver``.
public protocol UnpackedFileWatch: AnyObject {
    func update(_ bytes: UnsafeRawBufferPointer)
    /// The file is complete: written, its time and mode set, when `info` (its `fstat`) is given;
    /// left in the archive (``ZipArchiveReader/LeavingRule``) when it is nil.
    func finish(_ info: stat?)
}

extension ZipArchiveReader {
    /// Which regular files an unpack may leave in the archive instead of writing them: those the
    /// work that follows will neither read nor change. Only files carried as they were compressed
    /// (``CarriedEntries``), and not empty, are ever left.
    public struct LeavingRule: Sendable {
        /// Whether the entry may stay, by its name and mode.
        public var mayLeave: @Sendable (Entry) -> Bool
        /// Whether it still may, once its first bytes (at least 16, or all it has) are seen.
        public var mayLeaveContent: @Sendable (UnsafeRawBufferPointer) -> Bool

        public init(
            mayLeave: @escaping @Sendable (Entry) -> Bool, mayLeaveContent: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool
        ) {
            self.mayLeave = mayLeave
            self.mayLeaveContent = mayLeaveContent
        }
    }

    /// Unpacks every entry into `folder` (which must exist and be empty) as ``extract(to:)`` does —
    /// folders first, files with their permissions, links last — on `threads` workers, each file
    /// given its entry's time (so a new archive made of the folder keeps it). Returns the files
    /// written, by path, for carrying unchanged entries into a new archive; `observer` sees the
    /// bytes of every file. Every entry's size and CRC are checked as it is read.
    ///
    /// With `leaving`, a file the rule lets stay in the archive is read (for `observer`, and to
    /// check it) but not written: the folder holds only what may change, and the packager takes the
    /// others from the archive as they were compressed (``CarriedEntries/leftInArchive(under:)``).
    /// Folders are all made, links all written.
    public func unpack(
        to folder: String, threads: Int, observer: (any UnpackedFileObserver)? = nil, leaving: LeavingRule? = nil
    ) throws -> CarriedEntries {
        let carried = try CarriedEntries(self)
        for entry in entries where entry.isDirectory {
            try FileIO.createFolder(folder + "/" + entry.name)
        }
        var links: [(path: String, target: String)] = []
        let unpacker = EntryUnpacker(reader: self, folder: folder, carried: carried, observer: observer, leaving: leaving)
        let pool = WorkerPool(label: "adhocbuild.unpack", capacity: max(1, threads) * 2)
        var batch = WorkerBatch<Entry>(maxCount: 64, maxBytes: 1 << 20) { try unpacker.unpack($0) }
        var madeFolders = Set<String>()
        for entry in entries where !entry.isDirectory {
            if pool.hasFailed { break }
            let target = folder + "/" + entry.name
            let parent = FileIO.split(target).folder
            if madeFolders.insert(parent).inserted { try FileIO.createFolder(parent) }
            if entry.isSymlink {
                links.append((target, String(decoding: try data(entry), as: UTF8.self)))
                continue
            }
            batch.add(entry, bytes: Int(clamping: entry.size), to: pool)
        }
        batch.submit(to: pool)
        try pool.wait()
        for link in links {
            guard symlink(link.target, link.path) == 0 else {
                throw Diagnostic.ipa(
                    "cannot be unpacked as a link: \(SystemError.describe(errno))", file: path,
                    entry: String(link.path.dropFirst(folder.count + 1)))
            }
        }
        return carried
    }
}

/// Writes one entry's file on a worker thread.
// @unchecked Sendable: the reader serialises its libzip calls (readChunks may run on many threads);
// everything else here is immutable or Sendable.
private final class EntryUnpacker: @unchecked Sendable {
    let reader: ZipArchiveReader
    let folder: String
    let carried: CarriedEntries
    let observer: (any UnpackedFileObserver)?
    let leaving: ZipArchiveReader.LeavingRule?

    init(
        reader: ZipArchiveReader, folder: String, carried: CarriedEntries, observer: (any UnpackedFileObserver)?,
        leaving: ZipArchiveReader.LeavingRule?
    ) {
        self.reader = reader
        self.folder = folder
        self.carried = carried
        self.observer = observer
        self.leaving = leaving
    }

    func unpack(_ entry: ZipArchiveReader.Entry) throws {
        let target = folder + "/" + entry.name
        let mode = mode_t((entry.mode ?? 0o644) & 0o777)
        let dataOffset = reader.dataOffset(of: entry)
        // Whether the entry may stay in the archive, as far as its name and framing tell; its first
        // bytes have the last word.
        var leaves =
            leaving.map { $0.mayLeave(entry) } == true && entry.size > 0 && dataOffset != nil
            && CarriedEntries.carries(entry)
        var fd: Int32 = -1
        defer { if fd >= 0 { close(fd) } }
        var started = false
        let watch = observer?.watch(target)
        try reader.readChunks(entry, chunkSize: 1 << 20) { piece in
            if !started {
                started = true
                if leaves, let leaving, piece.count < min(entry.size, 16) || !leaving.mayLeaveContent(piece) { leaves = false }
            }
            if !leaves {
                if fd < 0 { fd = try create(target, entry) }
                do { try FileIO.writeAll(fd, piece) } catch {
                    throw Diagnostic.ipa("cannot be unpacked to \(target): \(error)", file: reader.path, entry: entry.name)
                }
            }
            watch?.update(piece)
        }
        if leaves {
            guard carried.record(target, entry: entry, dataOffset: dataOffset, info: nil) else {
                throw Diagnostic.ipa("cannot be read: its stored bytes end early", file: reader.path, entry: entry.name)
            }
            watch?.finish(nil)
            return
        }
        if fd < 0 { fd = try create(target, entry) }
        if let time = entry.modificationTime {
            var times = [timespec(tv_sec: Int(time), tv_nsec: 0), timespec(tv_sec: Int(time), tv_nsec: 0)]
            futimens(fd, &times)
        }
        fchmod(fd, mode)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw Diagnostic.ipa("cannot be unpacked: \(SystemError.describe(errno))", file: reader.path, entry: entry.name)
        }
        watch?.finish(info)
        carried.record(target, entry: entry, dataOffset: dataOffset, info: info)
        // Unpacked for a new archive, a large file that stays out of the archive is surveyed for
        // splicing: it is one the change may rewrite (an executable the signer signs again).
        if leaving != nil, entry.size >= IPAPackager.smallestSpliced, let dataOffset {
            carried.survey(target, entry: entry, dataOffset: dataOffset)
        }
    }

    /// Makes the file `target` for `entry`, readable and writable by this user alone until its mode is set.
    private func create(_ target: String, _ entry: ZipArchiveReader.Entry) throws -> Int32 {
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw Diagnostic.ipa("cannot be unpacked: \(SystemError.describe(errno))", file: reader.path, entry: entry.name)
        }
        return fd
    }
}
