import CLibDeflate
import CLibZip
import Compression
import Foundation
import SystemSupport

extension ZipArchiveReader {
    /// Reads `entry` in pieces into `buffer` (reused for every piece), handing each piece to `body`,
    /// so an entry of any size passes through at most `buffer.count` bytes of memory. A deflated entry
    /// that fits in the buffer is inflated in one call instead, its stream (at most twice the
    /// buffer's size) read first.
    ///
    /// The size the directory declares is checked as the pieces arrive, and libzip checks the CRC
    /// as the last bytes are read; a damaged, truncated or overlong entry is a one-line error naming
    /// it. Each libzip call holds the reader's lock, `body` runs outside it, so several threads may
    /// read entries at once and hash while another inflates.
    public func readChunks(
        _ entry: Entry, into buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw Diagnostic.ipa("cannot be read into an empty buffer", file: path, entry: entry.name)
        }
        recordChunkBuffer(buffer.count)
        if ZipArchiveReader.inflatesWhole(entry, into: buffer.count) {
            return try readWhole(entry, into: buffer, body)
        }
        // A stream of joined pieces is inflated a piece at a time; where that stops, the rest is
        // read through libzip (what was handed on already is inflated again, not handed twice).
        var handed: Int64 = 0
        if ZipArchiveReader.mayBeJoinedChunks(entry, into: buffer.count) {
            let joined = try readJoinedChunks(entry, into: buffer, body)
            if joined.isComplete { return }
            handed = joined.handed
        }
        // A handle of this read's own when one can be opened (no lock: several threads inflate at
        // once); else the shared one, each libzip call under the reader's lock.
        let own = takeHandle()
        let handle = own ?? archive
        defer { if let own { returnHandle(own) } }
        let locking = own == nil
        let (opened, openError) = holdingLock(if: locking) {
            let opened = zip_fopen_index(handle, entry.index, 0)
            return (opened, opened == nil ? String(cString: zip_strerror(handle)) : "")
        }
        guard let file = opened else { throw Diagnostic.ipa("cannot be read: \(openError)", file: path, entry: entry.name) }
        defer { holdingLock(if: locking) { _ = zip_fclose(file) } }
        var total: Int64 = 0
        while true {
            let (count, readError) = holdingLock(if: locking) {
                let count = zip_fread(file, base, UInt64(buffer.count))
                return (count, count < 0 ? String(cString: zip_file_strerror(file)) : "")
            }
            if count < 0 { throw Diagnostic.ipa("is damaged: \(readError)", file: path, entry: entry.name) }
            if count == 0 { break }
            total += count
            if total > entry.size {
                throw Diagnostic.ipa("holds more data than the \(entry.size) bytes it declares", file: path, entry: entry.name)
            }
            let fresh = Int(min(count, total - handed))
            if fresh > 0 { try body(UnsafeRawBufferPointer(start: base + (Int(count) - fresh), count: fresh)) }
        }
        guard total == entry.size else {
            throw Diagnostic.ipa("holds \(total) bytes but declares \(entry.size) (truncated?)", file: path, entry: entry.name)
        }
    }

    /// Whether `entry` is inflated in one call into a buffer of `capacity` bytes: deflated, fitting
    /// it, and stored in at most twice that (so the stream read first is bounded too).
    public static func inflatesWhole(_ entry: Entry, into capacity: Int) -> Bool {
        entry.compressionMethod == ZIP_CM_DEFLATE && entry.size > 0 && entry.size <= Int64(capacity)
            && entry.compressedSize <= 2 * Int64(capacity)
    }

    /// Reads `entry`'s deflate stream as stored and inflates it into `buffer` in one libdeflate call
    /// (about twice as fast as libzip's streaming zlib, its CRC too), checks the size and the CRC,
    /// then hands the bytes to `body`; damage is a one-line error naming the entry.
    private func readWhole(
        _ entry: Entry, into buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let compressed = try rawBytes(entry)
        guard let decompressor = libdeflate_alloc_decompressor() else {
            throw Diagnostic.ipa("cannot be read: out of memory", file: path, entry: entry.name)
        }
        defer { libdeflate_free_decompressor(decompressor) }
        let size = Int(entry.size)
        var actual = 0
        let result = compressed.withUnsafeBytes { input in
            libdeflate_deflate_decompress(decompressor, input.baseAddress, input.count, buffer.baseAddress, size, &actual)
        }
        switch result {
        case LIBDEFLATE_SUCCESS where actual == size:
            break
        case LIBDEFLATE_SUCCESS:
            throw Diagnostic.ipa("holds \(actual) bytes but declares \(entry.size) (truncated?)", file: path, entry: entry.name)
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            throw Diagnostic.ipa("holds more data than the \(entry.size) bytes it declares", file: path, entry: entry.name)
        default:
            throw Diagnostic.ipa("is damaged: invalid deflate data", file: path, entry: entry.name)
        }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<size])
        guard Deflater.crc32(0, bytes) == entry.crc else { throw Diagnostic.ipa("is damaged: CRC error", file: path, entry: entry.name) }
        try body(bytes)
    }

    /// Runs `body` holding the reader's lock when `locking` (a libzip call on the shared handle).
    private func holdingLock<T>(if locking: Bool, _ body: () -> T) -> T {
        locking ? lock.withLock(body) : body()
    }

    /// The bytes of `entry` as stored in the archive (its compressed stream).
    private func rawBytes(_ entry: Entry) throws -> [UInt8] {
        let own = takeHandle()
        defer { if let own { returnHandle(own) } }
        // The shared handle is used under the reader's lock; one of this read's own needs none.
        guard let own else { return try lock.withLock { try rawBytes(entry, through: archive) } }
        return try rawBytes(entry, through: own)
    }

    private func rawBytes(_ entry: Entry, through handle: OpaquePointer) throws -> [UInt8] {
        guard let file = zip_fopen_index(handle, entry.index, zip_flags_t(ZIP_FL_COMPRESSED)) else {
            throw Diagnostic.ipa("cannot be read: \(String(cString: zip_strerror(handle)))", file: path, entry: entry.name)
        }
        defer { zip_fclose(file) }
        var bytes = [UInt8](repeating: 0, count: Int(entry.compressedSize))
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress! + total, UInt64($0.count - total)) }
            if count < 0 { throw Diagnostic.ipa("is damaged: \(String(cString: zip_file_strerror(file)))", file: path, entry: entry.name) }
            if count == 0 { break }
            total += Int(count)
        }
        guard total == bytes.count else {
            throw Diagnostic.ipa(
                "holds \(total) compressed bytes but declares \(entry.compressedSize) (truncated?)", file: path, entry: entry.name)
        }
        return bytes
    }

    /// Reads `entry` in pieces of at most `chunkSize` bytes through one buffer of that size (or of
    /// the entry's size, when smaller), handing each piece to `body`. See ``readChunks(_:into:_:)``.
    public func readChunks(_ entry: Entry, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let size = max(1, min(chunkSize, Int(clamping: entry.size)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        try readChunks(entry, into: buffer, body)
    }

    /// The largest buffer a chunked read of this reader has used so far, in bytes (0 before any):
    /// what bounds the memory entries take while streamed, whatever their size.
    public var largestChunkBuffer: Int { chunkStatistics.value.largest }

    /// How many chunked reads this reader has started.
    public var chunkedReads: Int { chunkStatistics.value.reads }

    /// An idle spare handle, or a new one (nil when the file cannot be opened again, or when it no
    /// longer has as many entries: then the shared handle is used).
    func takeHandle() -> OpaquePointer? {
        if let idle = spareHandles.withLock({ $0.idle.popLast() }) { return idle }
        var error: Int32 = 0
        guard let handle = zip_open(path, ZIP_RDONLY, &error) else { return nil }
        guard zip_get_num_entries(handle, 0) == Int64(entries.count) else {
            zip_discard(handle)
            return nil
        }
        return handle
    }

    func returnHandle(_ handle: OpaquePointer) {
        spareHandles.withLock { $0.idle.append(handle) }
    }

    private func recordChunkBuffer(_ size: Int) {
        chunkStatistics.withLock {
            $0.largest = max($0.largest, size)
            $0.reads += 1
        }
    }
}

/// The idle spare libzip handles of a reader.
// @unchecked Sendable: a handle is used by one thread at a time: it is taken from `idle` under the
// Locked's lock and put back when its read is done.
struct SpareZipHandles: @unchecked Sendable {
    var idle: [OpaquePointer] = []
}
