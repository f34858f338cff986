import CLibZip
import Compression
import Foundation
import SystemSupport

/// The entries of an archive that was unpacked into a folder, each with the identity its file had
/// when it was written there: a file still the same when a new archive is made of the folder goes
/// in as its stored (compressed) bytes, re-framed, instead of being compressed again.
///
/// Only deflated and stored entries whose data offset is known (from the local header check, which
/// reads ZIP64 archives too) are carried, and only while the archive is still the file it was when it was opened (same inode,
/// size and change time): then the bytes carried are the ones inflated and CRC-checked as they were
/// unpacked. Each carried entry's stored bytes have their own CRC-32, taken as they were unpacked:
/// the new archive's check compares its copy's with it instead of inflating them again (see
/// ``ZipArchiveVerifier``), which still catches a damaged write.
// @unchecked Sendable: `files` is only touched under its lock; the descriptor is set once in init
// and only read with pread afterwards.
public final class CarriedEntries: PreparedBytes, @unchecked Sendable {
    /// What a carried file goes into the new archive as.
    struct Carried {
        /// Where the entry's content is besides the archive.
        enum Place {
            /// In the file written from it, which had this identity then.
            case written(FileIdentity)
            /// Nowhere else: it was left in the archive (and is read from there, as this entry).
            case left(ZipArchiveReader.Entry)
        }

        var place: Place
        var dataOffset: Int64
        var compressedSize: Int64
        var size: Int64
        var crc: UInt32
        var isDeflated: Bool
        /// The CRC-32 of the entry's stored (compressed) bytes.
        var storedCRC: UInt32

        /// The entry, for a file left in the archive.
        var leftEntry: ZipArchiveReader.Entry? {
            if case .left(let entry) = place { return entry }
            return nil
        }

        /// Whether it is still the file written from the entry at `path` (false for one left in the archive).
        func isWritten(at path: String) -> Bool {
            if case .written(let identity) = place { return FileIdentity(path: path) == identity }
            return false
        }
    }

    /// A deflated file as it was unpacked, surveyed for splicing (``DeflateSplice``): its old stream's
    /// block boundaries, and the file written from it, held open (a signer's new file renamed over
    /// the path leaves it as it was) with its size and modification time then. (Not its change time,
    /// which the rename changes too, as it takes a link away; a write changes the modification time.)
    struct Survey {
        var boundaries: [DeflateSplice.Boundary]
        var original: Int32
        var written: Written

        /// What tells the surveyed file's content has not changed since.
        struct Written: Equatable {
            var size: Int64
            var modified: Int64
            var modifiedNanoseconds: Int64

            init(_ info: stat) {
                size = Int64(info.st_size)
                modified = Int64(info.st_mtim.tv_sec)
                modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
            }
        }
    }

    /// The archive the entries come from, as the user named it.
    public let archivePath: String
    /// The archive's entry names in its order (folders end in `/`).
    public let entryOrder: [String]
    private let fileDescriptor: Int32
    /// The archive's identity when it was opened, before any entry was read.
    private let archiveIdentity: FileIdentity
    private let files = Locked<[String: Carried]>([:])
    private let surveys = Locked<[String: Survey]>([:])
    /// The reader the entries were unpacked with: files left in the archive are read through it.
    private let reader: ZipArchiveReader

    /// Opens the archive `reader` reads for carrying its entries.
    init(_ reader: ZipArchiveReader) throws {
        self.reader = reader
        archivePath = reader.path
        entryOrder = reader.entries.map(\.name)
        fileDescriptor = open(reader.path, O_RDONLY | O_CLOEXEC)
        guard fileDescriptor >= 0 else { throw Diagnostic.ipa("cannot be read: \(SystemError.describe(errno))", file: reader.path) }
        var info = stat()
        guard fstat(fileDescriptor, &info) == 0 else {
            close(fileDescriptor)
            throw Diagnostic.ipa("cannot be read: \(SystemError.describe(errno))", file: reader.path)
        }
        archiveIdentity = FileIdentity(info)
    }

    deinit {
        close(fileDescriptor)
        for survey in surveys.value.values { close(survey.original) }
    }

    /// Surveys the deflated file just unpacked at `path` from `entry` (its stream at `dataOffset`),
    /// so a changed version of it can be spliced without inflating the old stream again; does
    /// nothing when the stream or the file cannot be read. Called on the unpacking worker, which is
    /// where the inflating costs least: beside the other files' work, not after it.
    func survey(_ path: String, entry: ZipArchiveReader.Entry, dataOffset: Int64) {
        guard entry.compressionMethod == ZIP_CM_DEFLATE else { return }
        let original = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard original >= 0 else { return }
        var info = stat()
        guard fstat(original, &info) == 0, Int64(info.st_size) == entry.size,
            let boundaries = DeflateSplice.boundaries(old: self, offset: dataOffset, compressedSize: entry.compressedSize, size: entry.size)
        else {
            close(original)
            return
        }
        let survey = Survey(boundaries: boundaries, original: original, written: Survey.Written(info))
        if let replaced = surveys.withLock({ $0.updateValue(survey, forKey: path) }) { close(replaced.original) }
    }

    /// The survey of the file unpacked at `path`, while the file it was written as is unchanged
    /// (whatever is at `path` now) and the archive too.
    func survey(for path: String) -> Survey? {
        guard let survey = surveys.withLock({ $0[path] }), archiveIsUnchanged else { return nil }
        var info = stat()
        guard fstat(survey.original, &info) == 0, Survey.Written(info) == survey.written else { return nil }
        return survey
    }

    /// Whether an entry framed as `entry` can be carried: deflated or stored.
    static func carries(_ entry: ZipArchiveReader.Entry) -> Bool {
        entry.compressionMethod == ZIP_CM_DEFLATE || entry.compressionMethod == ZIP_CM_STORE
    }

    /// Records that `path` was written with `entry`'s content and has the identity `info` describes,
    /// or (`info` nil) that `path` was left in the archive: then it must be carried, as no file holds
    /// it. Its stored bytes' CRC-32 is taken here; an entry whose bytes cannot be read is not carried,
    /// and returns false (the caller must then write the file, or fail).
    @discardableResult
    func record(_ path: String, entry: ZipArchiveReader.Entry, dataOffset: Int64?, info: stat?) -> Bool {
        guard let dataOffset, Self.carries(entry), let storedCRC = crcOfStoredBytes(at: dataOffset, count: entry.compressedSize)
        else { return false }
        let carried = Carried(
            place: info.map { .written(FileIdentity($0)) } ?? .left(entry), dataOffset: dataOffset,
            compressedSize: entry.compressedSize, size: entry.size, crc: entry.crc, isDeflated: entry.compressionMethod == ZIP_CM_DEFLATE,
            storedCRC: storedCRC)
        files.withLock { $0[path] = carried }
        return true
    }

    /// The CRC-32 of `count` bytes of the archive from `offset`, read in pieces; nil when they cannot be read.
    private func crcOfStoredBytes(at offset: Int64, count: Int64) -> UInt32? {
        let pieceSize = Int(min(count, 1 << 20))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, pieceSize), alignment: 16)
        defer { buffer.deallocate() }
        var crc: UInt32 = 0
        var done: Int64 = 0
        while done < count {
            let wanted = Int(min(Int64(pieceSize), count - done))
            let got = read(at: offset + done, into: buffer.baseAddress!, count: wanted)
            guard got > 0 else { return nil }
            crc = Deflater.crc32(crc, UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            done += Int64(got)
        }
        return crc
    }

    /// Whether the archive is still the file it was when it was opened.
    private var archiveIsUnchanged: Bool {
        var info = stat()
        return fstat(fileDescriptor, &info) == 0 && FileIdentity(info) == archiveIdentity
    }

    /// How many files are recorded.
    public var count: Int { files.withLock { $0.count } }

    /// A file left in the archive by the unpack (``ZipArchiveReader/LeavingRule``): where it would
    /// be, and what it goes back into an archive with.
    public struct LeftFile: Sendable {
        /// Its path, as if it had been unpacked.
        public var path: String
        /// Its entry in the archive.
        public var entry: ZipArchiveReader.Entry
        public var size: Int64 { entry.size }
        /// The permissions and time it goes back into an archive with (as unpacking would give them).
        public var permissions: UInt32 { (entry.mode ?? 0o644) & 0o777 }
        public var modificationTime: Int64 { entry.modificationTime ?? 0 }
    }

    /// The files left in the archive under the folder `folder` (a path in the unpacked folder) that no
    /// file has been written over since, in no particular order. `present`, when given, is every path
    /// under `folder` that something is at (a listing of it just made): what is not in it is taken to
    /// be absent, without asking the file system path by path.
    public func leftInArchive(under folder: String, present: Set<String>? = nil) -> [LeftFile] {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        let left = files.withLock { files in
            files.compactMap { path, carried in
                carried.leftEntry.flatMap { path.hasPrefix(prefix) ? LeftFile(path: path, entry: $0) : nil }
            }
        }
        guard let present else { return left.filter { FileIO.isAbsent($0.path) } }
        return left.filter { !present.contains($0.path) }
    }

    /// Throws when one of `paths` (files a new archive cannot take from this one as they were
    /// compressed) is a file left in the archive that nothing was written over: its bytes are in the
    /// archive alone, and the archive changed since it was opened.
    func checkLeftFilesCarried(_ paths: [String]) throws {
        for path in paths {
            guard files.withLock({ $0[path]?.leftEntry }) != nil, FileIO.isAbsent(path) else { continue }
            throw Diagnostic.ipa("changed while it was being read; run again with the archive left alone", file: archivePath)
        }
    }

    /// The entry of the archive the file left at `path` is, when nothing was put in its place since.
    public func leftEntry(at path: String) -> ZipArchiveReader.Entry? {
        guard let entry = files.withLock({ $0[path]?.leftEntry }), FileIO.isAbsent(path) else { return nil }
        return entry
    }

    /// Reads the file left in the archive as `entry` (``leftEntry(at:)``) in pieces of at most
    /// `chunkSize` bytes, its size and CRC checked as it is read.
    public func readLeft(_ entry: ZipArchiveReader.Entry, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try reader.readChunks(entry, chunkSize: chunkSize, body)
    }

    /// Whether the unpack left any file in the archive.
    public var leftAny: Bool { files.withLock { $0.values.contains { $0.leftEntry != nil } } }

    /// The stored bytes of the file at `path` as they go into a new archive, if it is still the
    /// file that was unpacked there, or was left in the archive and nothing was written there since
    /// (read from this object at the offsets given).
    ///
    /// `listedAsLeft`: the caller has just found nothing at `path` (it listed the folder), so a file
    /// left in the archive is not looked for again.
    func prepared(for path: String, listedAsLeft: Bool = false) -> PreparedEntry? {
        guard let carried = files.withLock({ $0[path] }),
            carried.leftEntry == nil ? carried.isWritten(at: path) : (listedAsLeft || FileIO.isAbsent(path)),
            archiveIsUnchanged
        else {
            return nil
        }
        var entry = PreparedEntry()
        entry.segments = [(carried.dataOffset, Int(carried.compressedSize))]
        entry.uncompressedSize = carried.size
        entry.crc = carried.crc
        entry.isDeflated = carried.isDeflated
        entry.isCarried = true
        entry.storedCRC = carried.storedCRC
        return entry
    }

    /// Where the deflate stream the file at `path` was unpacked from is, when it was deflated and
    /// the archive is unchanged, whether or not the file still is: what a changed file's new stream
    /// can keep blocks of (``DeflateSplice``).
    func previousStream(for path: String) -> (offset: Int64, compressedSize: Int64, size: Int64)? {
        guard let carried = files.withLock({ $0[path] }), carried.isDeflated, archiveIsUnchanged else { return nil }
        return (carried.dataOffset, carried.compressedSize, carried.size)
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        retryingInterrupted { pread(fileDescriptor, buffer, count, off_t(offset)) }
    }
}
