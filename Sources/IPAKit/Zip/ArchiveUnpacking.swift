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
    /// The file is written, its time and mode set; `info` is its `fstat`.
    func finish(_ info: stat)
}

extension ZipArchiveReader {
    /// Unpacks every entry into `folder` (which must exist and be empty) as ``extract(to:)`` does —
    /// folders first, files with their permissions, links last — on `threads` workers, each file
    /// given its entry's time (so a new archive made of the folder keeps it). Returns the files
    /// written, by path, for carrying unchanged entries into a new archive; `observer` sees the
    /// bytes of every file. Every entry's size and CRC are checked as it is read.
    public func unpack(to folder: String, threads: Int, observer: (any UnpackedFileObserver)? = nil) throws -> CarriedEntries {
        let carried = try CarriedEntries(self)
        for entry in entries where entry.isDirectory {
            try FileIO.createFolder(folder + "/" + entry.name)
        }
        var links: [(path: String, target: String)] = []
        let unpacker = EntryUnpacker(reader: self, folder: folder, carried: carried, observer: observer)
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

    init(reader: ZipArchiveReader, folder: String, carried: CarriedEntries, observer: (any UnpackedFileObserver)?) {
        self.reader = reader
        self.folder = folder
        self.carried = carried
        self.observer = observer
    }

    func unpack(_ entry: ZipArchiveReader.Entry) throws {
        let target = folder + "/" + entry.name
        let mode = mode_t((entry.mode ?? 0o644) & 0o777)
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw Diagnostic.ipa("cannot be unpacked: \(SystemError.describe(errno))", file: reader.path, entry: entry.name)
        }
        defer { close(fd) }
        let watch = observer?.watch(target)
        try reader.readChunks(entry, chunkSize: 1 << 20) { piece in
            do { try FileIO.writeAll(fd, piece) } catch {
                throw Diagnostic.ipa("cannot be unpacked to \(target): \(error)", file: reader.path, entry: entry.name)
            }
            watch?.update(piece)
        }
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
        carried.record(target, entry: entry, dataOffset: reader.dataOffset(of: entry), info: info)
    }
}
