import CLibDeflate
import CLibZip
import CZlib
import Foundation
import SystemSupport

/// Reopens a freshly written archive and checks every entry's data against the size and CRC
/// in its central directory.
///
/// Two readers take part. libzip, an implementation independent of the writer, reopens the
/// archive on a thread of its own and checks its structure (every local header against the
/// central directory). Meanwhile the local headers are walked back to back from the start of
/// a map of the file, and the stored entries' bytes are read back and their CRCs taken with
/// libdeflate on every core. Then the two listings must agree entry by entry: names, methods,
/// sizes and CRCs. Deflated entries that adhocbuild made in chunks are checked on all cores:
/// the entry's raw bytes are cut at the chunk boundaries (each chunk is an independent deflate
/// segment ending in a sync-flush marker), inflated in parallel with libdeflate, and their
/// CRCs combined. Other deflated entries up to ``wholeLimit`` are inflated whole with libdeflate
/// on every core too, in batches, so an app of many small files is not checked one file at a
/// time; larger ones (which adhocbuild never writes unchunked) are read through libzip, which
/// inflates and checks them itself.
enum ZipArchiveVerifier {
    /// How an entry was laid out when written: its compressed segment lengths and sizes.
    struct Layout {
        var segmentLengths: [Int]
        var uncompressedSize: Int64
        var chunkSize: Int
    }

    static func verify(_ path: String, layouts: [String: Layout], threads: Int, displayName: String) throws {
        let mapped = try MappedArchive(path, displayName: displayName)
        // libzip's structural check runs on its own thread while the stored data is checked here.
        let directory = LibzipDirectory()
        let opening = DispatchGroup()
        DispatchQueue.global().async(group: opening) { directory.read(path, displayName: displayName) }
        defer { opening.wait() }
        let locals = try mapped.localEntries()
        let stored = locals.indices.filter { locals[$0].method == UInt16(ZIP_CM_STORE) }
        let storedCRCs = try mapped.crcs(
            of: stored.map { locals[$0].dataOffset..<(locals[$0].dataOffset + locals[$0].compressedSize) },
            threads: threads)
        opening.wait()
        let archive = try directory.archive()
        let entries = directory.entries
        guard entries.count == locals.count else {
            throw IPAError(
                "failed verification: the central directory lists \(entries.count) entries, "
                    + "but \(locals.count) local headers follow one another from the start", file: displayName)
        }
        var storedCRC: [Int: UInt32] = [:]
        for (position, index) in stored.enumerated() { storedCRC[index] = storedCRCs[position] }

        let pool = WorkerPool(label: "adhocbuild.verify", capacity: max(1, threads) * 2)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        // Chunked entries' CRCs, combined and compared once every job has run.
        var chunked: [(crcs: CRCList, crc: UInt32, fail: @Sendable (String) -> IPAError)] = []
        var batch = WorkerBatch<WholeEntry>(maxCount: 64, maxBytes: 1 << 20) { try $0.check(reading: mapped) }
        for (index, stat) in entries.enumerated() {
            if pool.hasFailed { break }
            let local = locals[index]
            let name = stat.name
            @Sendable func fail(_ message: String) -> IPAError {
                IPAError("failed verification: \(message)", file: displayName, entry: name)
            }
            guard local.name.elementsEqual(name.utf8) else {
                throw fail("the local header at offset \(local.headerOffset) names '\(local.nameText)'")
            }
            guard local.flags & 0x0008 == 0, local.method == stat.method, local.crc == stat.crc,
                local.compressedSize == stat.compressedSize, local.size == stat.size
            else {
                throw fail("its local header does not agree with the central directory")
            }
            if stat.method == UInt16(ZIP_CM_STORE) {
                guard stat.size == stat.compressedSize else {
                    throw fail("stored, yet declares \(stat.size) bytes in \(stat.compressedSize)")
                }
                let crc = storedCRC[index] ?? 0
                if crc != stat.crc { throw fail(String(format: "CRC %08x does not match the directory's %08x", crc, stat.crc)) }
            } else if let layout = layouts[name], stat.method == UInt16(ZIP_CM_DEFLATE), layout.segmentLengths.count > 1 {
                guard Int64(stat.size) == layout.uncompressedSize,
                    Int64(stat.compressedSize) == Int64(layout.segmentLengths.reduce(0, +))
                else {
                    throw fail("sizes in the archive (\(stat.size), \(stat.compressedSize)) are not the ones written")
                }
                let crcs = CRCList(count: layout.segmentLengths.count)
                var segmentStart = local.dataOffset
                for (segment, length) in layout.segmentLengths.enumerated() {
                    let isLast = segment == layout.segmentLengths.count - 1
                    let expected = isLast ? Int(layout.uncompressedSize) - segment * layout.chunkSize : layout.chunkSize
                    var compressed = try mapped.read(segmentStart..<(segmentStart + length))
                    segmentStart += length
                    if !isLast {
                        guard length >= 4, compressed[(length - 4)..<length].elementsEqual([0, 0, 0xFF, 0xFF]) else {
                            throw fail("chunk \(segment) does not end with a sync-flush marker")
                        }
                        compressed += [0x03, 0x00]  // a final empty block, so the segment inflates on its own
                    }
                    let segmentBytes = compressed
                    pool.submit {
                        guard let output = segmentBytes.withUnsafeBytes({ Deflater.inflate($0, size: expected) }) else {
                            throw fail("chunk \(segment) does not inflate to \(expected) bytes")
                        }
                        crcs.set(segment, crc: output.withUnsafeBytes { Deflater.crc32(0, $0) }, length: expected)
                    }
                }
                chunked.append((crcs, stat.crc, fail))
            } else if stat.method == UInt16(ZIP_CM_DEFLATE), stat.size <= wholeLimit, stat.compressedSize <= 2 * wholeLimit {
                batch.add(
                    WholeEntry(
                        range: local.dataOffset..<(local.dataOffset + stat.compressedSize), size: stat.size, crc: stat.crc, fail: fail),
                    bytes: stat.size, to: pool)
            } else {
                // libzip inflates it and checks the CRC itself.
                guard let file = zip_fopen_index(archive, UInt64(index), 0) else { throw fail(String(cString: zip_strerror(archive))) }
                var total: Int64 = 0
                var result: Int64 = 0
                repeat {
                    result = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64($0.count)) }
                    if result > 0 { total += result }
                } while result > 0
                let message = result < 0 ? String(cString: zip_file_strerror(file)) : nil
                zip_fclose(file)
                if let message { throw fail(message) }
                guard total == Int64(stat.size) else { throw fail("holds \(total) bytes but declares \(stat.size)") }
            }
        }
        batch.submit(to: pool)
        try pool.wait()
        for entry in chunked where entry.crcs.combined != entry.crc {
            throw entry.fail(String(format: "CRC %08x does not match the directory's %08x", entry.crcs.combined, entry.crc))
        }
    }

    /// Deflated entries up to this size that were not written in chunks are inflated whole.
    static let wholeLimit = 4 << 20

    /// A deflated entry to inflate whole: where its stream is, its declared size and CRC.
    struct WholeEntry: Sendable {
        var range: Range<Int>
        var size: Int
        var crc: UInt32
        var fail: @Sendable (String) -> IPAError

        /// Inflates the entry from `mapped` and checks its size and CRC.
        func check(reading mapped: MappedArchive) throws {
            let compressed = try mapped.read(range)
            guard let output = compressed.withUnsafeBytes({ Deflater.inflate($0, size: size) }) else {
                throw fail("does not inflate to the \(size) bytes it declares")
            }
            let crc = output.withUnsafeBytes { Deflater.crc32(0, $0) }
            guard crc == self.crc else { throw fail(String(format: "CRC %08x does not match the directory's %08x", crc, self.crc)) }
        }
    }
}

/// The archive reopened by libzip with its consistency check (every local header against the
/// central directory), and the entries it lists.
// @unchecked Sendable: filled by one thread in read(_:displayName:), then read by another only after
// the DispatchGroup that ran it has been waited on.
private final class LibzipDirectory: @unchecked Sendable {
    struct Entry {
        var name: String
        var method: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
    }

    private var handle: OpaquePointer?
    private var failure: IPAError?
    private(set) var entries: [Entry] = []

    deinit { if let handle { zip_discard(handle) } }

    /// Opens `path` and lists its entries; a failure is kept for ``archive()``.
    func read(_ path: String, displayName: String) {
        var openError: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &openError) else {
            failure = IPAError("failed verification: \(ZipArchiveWriter.message(forCode: openError))", file: displayName)
            return
        }
        handle = archive
        let count = max(0, zip_get_num_entries(archive, 0))
        entries.reserveCapacity(Int(count))
        for index in 0..<UInt64(count) {
            var stat = zip_stat_t()
            guard zip_stat_index(archive, index, 0, &stat) == 0, let name = stat.name else {
                failure = IPAError("failed verification: \(String(cString: zip_strerror(archive)))", file: displayName)
                return
            }
            entries.append(
                Entry(
                    name: String(cString: name), method: stat.comp_method, crc: stat.crc,
                    compressedSize: Int(stat.comp_size), size: Int(stat.size)))
        }
    }

    /// The open archive, or the failure met opening or listing it.
    func archive() throws -> OpaquePointer {
        if let failure { throw failure }
        return handle!
    }
}

/// CRCs of an entry's chunks, combined in order at the end.
private struct CRCList: Sendable {
    private let values: Locked<[(crc: UInt32, length: Int)]>

    init(count: Int) { values = Locked(Array(repeating: (0, 0), count: count)) }

    func set(_ index: Int, crc: UInt32, length: Int) {
        values.withLock { $0[index] = (crc, length) }
    }

    var combined: UInt32 {
        var result: UInt = 0
        for (index, value) in values.value.enumerated() {
            result = index == 0 ? UInt(value.crc) : crc32_combine(result, UInt(value.crc), off_t(value.length))
        }
        return UInt32(truncatingIfNeeded: result)
    }
}
