import CLibZip
import Foundation
import SystemSupport

/// The entries of an archive that was unpacked into a folder, each with the identity its file had
/// when it was written there: a file still the same when a new archive is made of the folder goes
/// in as its stored (compressed) bytes, re-framed, instead of being compressed again.
///
/// Only deflated and stored entries whose data offset is known (archives without ZIP64) are
/// carried; the new archive is checked entry by entry after it is written, as any other.
// @unchecked Sendable: `files` is only touched under its lock; the descriptor is set once in init
// and only read with pread afterwards.
public final class CarriedEntries: PreparedBytes, @unchecked Sendable {
    /// What a carried file goes into the new archive as.
    struct Carried {
        var identity: FileIdentity
        var dataOffset: Int64
        var compressedSize: Int64
        var size: Int64
        var crc: UInt32
        var isDeflated: Bool
    }

    /// The archive the entries come from, as the user named it.
    public let archivePath: String
    /// The archive's entry names in its order (folders end in `/`).
    public let entryOrder: [String]
    private let fileDescriptor: Int32
    private let files = Locked<[String: Carried]>([:])

    /// Opens the archive `reader` reads for carrying its entries.
    init(_ reader: ZipArchiveReader) throws {
        archivePath = reader.path
        entryOrder = reader.entries.map(\.name)
        fileDescriptor = open(reader.path, O_RDONLY | O_CLOEXEC)
        guard fileDescriptor >= 0 else { throw IPAError("cannot be read: \(SystemError.describe(errno))", file: reader.path) }
    }

    deinit { close(fileDescriptor) }

    /// Records that `path` was written with `entry`'s content and has the identity `info` describes.
    func record(_ path: String, entry: ZipArchiveReader.Entry, dataOffset: Int64?, info: stat) {
        guard let dataOffset, entry.compressionMethod == ZIP_CM_DEFLATE || entry.compressionMethod == ZIP_CM_STORE else { return }
        let carried = Carried(
            identity: FileIdentity(info), dataOffset: dataOffset, compressedSize: entry.compressedSize, size: entry.size,
            crc: entry.crc, isDeflated: entry.compressionMethod == ZIP_CM_DEFLATE)
        files.withLock { $0[path] = carried }
    }

    /// How many files are recorded.
    public var count: Int { files.withLock { $0.count } }

    /// The stored bytes of the file at `path` as they go into a new archive, if it is still the
    /// file that was unpacked there (read from this object at the offsets given).
    func prepared(for path: String) -> PreparedEntry? {
        guard let carried = files.withLock({ $0[path] }), FileIdentity(path: path) == carried.identity else { return nil }
        var entry = PreparedEntry()
        entry.segments = [(carried.dataOffset, Int(carried.compressedSize))]
        entry.uncompressedSize = carried.size
        entry.crc = carried.crc
        entry.isDeflated = carried.isDeflated
        entry.isCarried = true
        return entry
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        retryingInterrupted { pread(fileDescriptor, buffer, count, off_t(offset)) }
    }
}
