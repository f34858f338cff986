import CLibZip
import CZlib
import Compression
import Foundation
import SystemSupport

/// Reopens a freshly written archive and checks every entry's data against the size and CRC
/// in its central directory.
///
/// The archive is mapped, and its local headers are walked back to back from the start. Every
/// entry's data is checked from them: stored entries' CRCs are taken with libdeflate on every
/// core; deflated entries that adhocbuild made in chunks are cut at the chunk boundaries (each
/// chunk is an independent deflate segment ending in a sync-flush marker), inflated in parallel
/// with libdeflate, and their CRCs combined; other deflated entries up to ``wholeLimit`` are
/// inflated whole with libdeflate on every core too, in batches, so an app of many small files
/// is not checked one file at a time; an entry carried unchanged from the archive it was unpacked
/// from, whose content was checked then, has the CRC-32 of its stored bytes compared with theirs
/// instead. Then the central directory, read from its end record back,
/// must agree with the local headers entry by entry: names, methods, sizes, CRCs, and where each
/// local header is.
///
/// libzip, an implementation independent of the writer, lists the directory of a ZIP64 archive
/// instead (with `ZIP_CHECKCONS`, its own check of every local header against the directory),
/// and reads any larger unchunked entry (which adhocbuild never writes), inflating it and
/// checking its CRC itself. It no longer reopens every archive: its listing cost 3 µs an entry
/// and its local-header check as much again, a tenth of a second on an app of 20,000 files,
/// while the framing it would vouch for is checked against Info-ZIP's `unzip`, Python's
/// `zipfile` and libzip's own output byte for byte in the tests.
enum ZipArchiveVerifier {
    /// How an entry was laid out when written: its compressed segment lengths and sizes.
    struct Layout {
        var segmentLengths: [Int]
        var uncompressedSize: Int64
        var chunkSize: Int
        /// For an entry carried unchanged from another archive (see ``CarriedEntries``), the CRC-32
        /// of its stored bytes there, which were inflated and checked as they were unpacked: its copy
        /// here is checked against that instead of being inflated again.
        var storedCRC: UInt32? = nil
        /// Each segment's uncompressed size, when they are not `chunkSize` each (a spliced entry).
        var segmentSizes: [Int]? = nil
        /// The segment a spliced entry kept from its old stream (see ``DeflateSplice``).
        var kept: KeptSegment? = nil
    }

    /// Deflate blocks kept from an entry's old stream: they go on from the segment before, so they
    /// do not inflate on their own. They were inflated when they were kept, and found to hold the
    /// new file's bytes; here the bytes written are checked against the CRC-32 of those made.
    struct KeptSegment: Sendable, Equatable {
        var index: Int
        /// The CRC-32 of the segment's stored bytes as they were made.
        var storedCRC: UInt32
        /// The CRC-32 of the bytes the segment inflates to (the new file's, where it lies).
        var contentCRC: UInt32
    }

    static func verify(_ path: String, layouts: [String: Layout], threads: Int, displayName: String) throws {
        let mapped = try MappedArchive(path, displayName: displayName)
        let locals = try mapped.localEntries()
        let records = try mapped.centralDirectory()
        // A ZIP64 archive's directory is listed by libzip, on a thread of its own while the data
        // is checked here, with its own check of every local header against the directory.
        let directory = LibzipDirectory()
        let opening = records != nil ? nil : BackgroundResult { directory.read(path, displayName: displayName, checkingLocalHeaders: true) }
        defer { opening?.get() }
        let pool = WorkerPool(label: "adhocbuild.verify", capacity: max(1, threads) * 2)
        do {
            let data = try checkData(of: locals, in: mapped, layouts: layouts, threads: threads, pool: pool, displayName: displayName)
            opening?.get()
            let listing = try records ?? directory.listing()
            try checkDirectory(listing, against: locals, data: data, displayName: displayName)
            if !data.throughLibzip.isEmpty {
                if records != nil { directory.read(path, displayName: displayName, checkingLocalHeaders: false) }
                try readThroughLibzip(data.throughLibzip, of: directory, listing: listing, displayName: displayName)
            }
            try pool.wait()
            for entry in data.chunked where entry.crcs.combined != entry.crc {
                throw entry.fail(crcMismatch(entry.crcs.combined, entry.crc))
            }
        } catch {
            try? pool.wait()  // no job may still read the archive once this returns
            throw error
        }
    }

    /// What ``checkData(of:in:layouts:threads:pool:displayName:)`` leaves to be finished once the
    /// central directory has been listed.
    private struct DataChecks {
        /// The CRC of each stored entry's data, by index.
        var storedCRCs: [Int: UInt32] = [:]
        /// Chunked entries' CRCs, combined and compared once every job has run.
        var chunked: [(crcs: CRCList, crc: UInt32, fail: @Sendable (String) -> Diagnostic)] = []
        /// Deflated entries too large to inflate whole, read through libzip.
        var throughLibzip: [Int] = []
    }

    /// Checks every entry's data from its local header: the stored entries' CRCs are taken on
    /// every core before this returns, and the deflated entries are queued on `pool` (chunks
    /// inflated in parallel, small entries in batches), all while libzip lists the directory.
    private static func checkData(
        of locals: [MappedArchive.LocalEntry], in mapped: MappedArchive, layouts: [String: Layout], threads: Int,
        pool: WorkerPool, displayName: String
    ) throws -> DataChecks {
        var result = DataChecks()
        let stored = locals.indices.filter { locals[$0].method == UInt16(ZIP_CM_STORE) }
        let storedCRCs = try mapped.crcs(
            of: stored.map { locals[$0].dataOffset..<(locals[$0].dataOffset + locals[$0].compressedSize) },
            threads: threads)
        for (position, index) in stored.enumerated() { result.storedCRCs[index] = storedCRCs[position] }
        let carried = try checkCarried(locals, in: mapped, layouts: layouts, threads: threads, displayName: displayName)
        // Only entries larger than one chunk were written in chunks.
        let smallestChunked = layouts.values.lazy.filter { $0.segmentLengths.count > 1 }.map(\.uncompressedSize).min() ?? .max
        var batch = WorkerBatch<WholeEntry>(maxCount: 64, maxBytes: 1 << 20) { try WholeEntry.check($0, reading: mapped) }
        for (index, local) in locals.enumerated() where local.method == UInt16(ZIP_CM_DEFLATE) && !carried.contains(index) {
            if pool.hasFailed { break }
            let name = local.nameText
            @Sendable func fail(_ message: String) -> Diagnostic { failure(message, in: displayName, entry: name) }
            if Int64(local.size) >= smallestChunked, let layout = layouts[name], layout.segmentLengths.count > 1 {
                guard Int64(local.size) == layout.uncompressedSize,
                    Int64(local.compressedSize) == Int64(layout.segmentLengths.reduce(0, +))
                else {
                    throw fail("sizes in the archive (\(local.size), \(local.compressedSize)) are not the ones written")
                }
                let crcs = CRCList(count: layout.segmentLengths.count)
                var segmentStart = local.dataOffset
                for (segment, length) in layout.segmentLengths.enumerated() {
                    let isLast = segment == layout.segmentLengths.count - 1
                    let expected =
                        layout.segmentSizes?[segment]
                        ?? (isLast ? Int(layout.uncompressedSize) - segment * layout.chunkSize : layout.chunkSize)
                    let range = segmentStart..<(segmentStart + length)
                    segmentStart += length
                    if let kept = layout.kept, kept.index == segment {
                        let crc = try mapped.crcs(of: [range], threads: threads)[0]
                        guard crc == kept.storedCRC else {
                            throw fail(
                                "the deflate blocks kept from its old stream are not the bytes made (\(crcMismatch(crc, kept.storedCRC)))")
                        }
                        crcs.set(segment, crc: kept.contentCRC, length: expected)
                        continue
                    }
                    var compressed = try mapped.read(range)
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
                result.chunked.append((crcs, local.crc, fail))
            } else if local.size <= wholeLimit, local.compressedSize <= 2 * wholeLimit {
                batch.add(
                    WholeEntry(
                        range: local.dataOffset..<(local.dataOffset + local.compressedSize), size: local.size, crc: local.crc,
                        fail: fail),
                    bytes: local.size, to: pool)
            } else {
                result.throughLibzip.append(index)
            }
        }
        batch.submit(to: pool)
        return result
    }

    /// Checks each deflated entry carried from another archive (its layout has a `storedCRC`) by the
    /// CRC-32 of its stored bytes, taken on every core, and returns the indices of those checked.
    /// The entry's sizes must be the ones written. Its CRC in the directory is the one its content
    /// was checked against when it was unpacked, and the directory is checked against the local
    /// headers as any other entry's.
    private static func checkCarried(
        _ locals: [MappedArchive.LocalEntry], in mapped: MappedArchive, layouts: [String: Layout], threads: Int,
        displayName: String
    ) throws -> Set<Int> {
        guard layouts.values.contains(where: { $0.storedCRC != nil }) else { return [] }
        var carried: [(index: Int, layout: Layout)] = []
        for (index, local) in locals.enumerated() where local.method == UInt16(ZIP_CM_DEFLATE) {
            guard let layout = layouts[local.nameText], layout.storedCRC != nil else { continue }
            guard Int64(local.size) == layout.uncompressedSize, local.compressedSize == layout.segmentLengths.reduce(0, +) else {
                throw failure(
                    "sizes in the archive (\(local.size), \(local.compressedSize)) are not the ones written", in: displayName,
                    entry: local.nameText)
            }
            carried.append((index, layout))
        }
        let crcs = try mapped.crcs(
            of: carried.map { locals[$0.index].dataOffset..<(locals[$0.index].dataOffset + locals[$0.index].compressedSize) },
            threads: threads)
        for (position, entry) in carried.enumerated() where crcs[position] != entry.layout.storedCRC {
            throw failure(
                "its compressed bytes are not the ones carried from the archive it was unpacked from ("
                    + crcMismatch(crcs[position], entry.layout.storedCRC ?? 0) + ")",
                in: displayName, entry: locals[entry.index].nameText)
        }
        return Set(carried.map(\.index))
    }

    /// Checks the central directory's records against the local headers, entry by entry: names,
    /// methods, CRCs, sizes, and where each local header is.
    private static func checkDirectory(
        _ records: [MappedArchive.CentralRecord], against locals: [MappedArchive.LocalEntry], data: DataChecks,
        displayName: String
    ) throws {
        guard records.count == locals.count else {
            throw Diagnostic.ipa(
                "failed verification: the central directory lists \(records.count) entries, "
                    + "but \(locals.count) local headers follow one another from the start", file: displayName)
        }
        for (index, record) in records.enumerated() {
            let local = locals[index]
            func fail(_ message: String) -> Diagnostic { failure(message, in: displayName, entry: record.nameText) }
            guard local.name == record.name else {
                throw fail("the local header at offset \(local.headerOffset) names '\(local.nameText)'")
            }
            if let offset = record.localHeaderOffset, offset != local.headerOffset {
                throw fail("the central directory puts its local header at offset \(offset), not \(local.headerOffset)")
            }
            guard local.flags & 0x0008 == 0, local.method == record.method, local.crc == record.crc,
                local.compressedSize == record.compressedSize, local.size == record.size
            else {
                throw fail("its local header does not agree with the central directory")
            }
            if record.method == UInt16(ZIP_CM_STORE) {
                guard record.size == record.compressedSize else {
                    throw fail("stored, yet declares \(record.size) bytes in \(record.compressedSize)")
                }
                let crc = data.storedCRCs[index] ?? 0
                if crc != record.crc { throw fail(crcMismatch(crc, record.crc)) }
            } else if record.method != UInt16(ZIP_CM_DEFLATE) {
                throw fail("is compressed with method \(record.method), neither stored (0) nor deflated (8)")
            }
        }
    }

    /// Reads the entries at `indices` through libzip, which inflates them and checks their CRCs.
    private static func readThroughLibzip(
        _ indices: [Int], of directory: LibzipDirectory, listing: [MappedArchive.CentralRecord], displayName: String
    ) throws {
        let archive = try directory.archive()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for index in indices {
            let record = listing[index]
            func fail(_ message: String) -> Diagnostic { failure(message, in: displayName, entry: record.nameText) }
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
            guard total == Int64(record.size) else { throw fail("holds \(total) bytes but declares \(record.size)") }
        }
    }

    /// The error for a check of `entry` in the archive shown as `displayName` that failed.
    static func failure(_ message: String, in displayName: String, entry: String) -> Diagnostic {
        Diagnostic.ipa("failed verification: \(message)", file: displayName, entry: entry)
    }

    /// What a failed CRC check says: the CRC of the bytes read, then the one the directory holds.
    static func crcMismatch(_ actual: UInt32, _ expected: UInt32) -> String {
        String(format: "CRC %08x does not match the directory's %08x", actual, expected)
    }

    /// Deflated entries up to this size that were not written in chunks are inflated whole.
    static let wholeLimit = 4 << 20

    /// A deflated entry to inflate whole: where its stream is, its declared size and CRC.
    struct WholeEntry: Sendable {
        var range: Range<Int>
        var size: Int
        var crc: UInt32
        var fail: @Sendable (String) -> Diagnostic

        /// Inflates each entry of `batch` (in archive order) from `mapped` and checks its size
        /// and CRC: the batch's compressed bytes are read with one system call, and inflated by one
        /// decompressor into one buffer.
        static func check(_ batch: [WholeEntry], reading mapped: MappedArchive) throws {
            guard let first = batch.first, let last = batch.last else { return }
            let span = first.range.lowerBound..<max(first.range.upperBound, last.range.upperBound)
            let compressed = try mapped.read(span)
            let inflater = Inflater()
            var output = [UInt8](repeating: 0, count: batch.lazy.map(\.size).max() ?? 0)
            try compressed.withUnsafeBytes { compressed in
                try output.withUnsafeMutableBytes { output in
                    for entry in batch {
                        let start = entry.range.lowerBound - span.lowerBound
                        let input = UnsafeRawBufferPointer(rebasing: compressed[start..<(start + entry.range.count)])
                        let target = UnsafeMutableRawBufferPointer(rebasing: output[0..<entry.size])
                        guard inflater.inflate(input, into: target) else {
                            throw entry.fail("does not inflate to the \(entry.size) bytes it declares")
                        }
                        let crc = Deflater.crc32(0, UnsafeRawBufferPointer(target))
                        guard crc == entry.crc else {
                            throw entry.fail(crcMismatch(crc, entry.crc))
                        }
                    }
                }
            }
        }
    }
}

/// The archive reopened by libzip, with its consistency check (every local header against the
/// central directory) when asked, and the entries it lists.
// @unchecked Sendable: filled by one thread in read(_:displayName:checkingLocalHeaders:), then read
// by another only after the BackgroundResult that ran it has been waited on.
private final class LibzipDirectory: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var failure: Diagnostic?
    private var records: [MappedArchive.CentralRecord] = []

    deinit { if let handle { zip_discard(handle) } }

    /// Opens `path` and lists its entries, with libzip's own check of every local header against
    /// the central directory when `checkingLocalHeaders`; a failure is kept for ``archive()``.
    func read(_ path: String, displayName: String, checkingLocalHeaders: Bool) {
        var openError: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY | (checkingLocalHeaders ? ZIP_CHECKCONS : 0), &openError) else {
            failure = Diagnostic.ipa("failed verification: \(ZipArchiveWriter.message(forCode: openError))", file: displayName)
            return
        }
        handle = archive
        let count = max(0, zip_get_num_entries(archive, 0))
        records.reserveCapacity(Int(count))
        for index in 0..<UInt64(count) {
            var stat = zip_stat_t()
            guard zip_stat_index(archive, index, 0, &stat) == 0, let name = stat.name else {
                failure = Diagnostic.ipa("failed verification: \(String(cString: zip_strerror(archive)))", file: displayName)
                return
            }
            records.append(
                MappedArchive.CentralRecord(
                    name: Array(UnsafeRawBufferPointer(start: name, count: strlen(name))), method: stat.comp_method,
                    crc: stat.crc, compressedSize: Int(stat.comp_size), size: Int(stat.size), localHeaderOffset: nil))
        }
    }

    /// The open archive, or the failure met opening or listing it.
    func archive() throws -> OpaquePointer {
        if let failure { throw failure }
        return handle!
    }

    /// The entries listed, or the failure met opening or listing the archive.
    func listing() throws -> [MappedArchive.CentralRecord] {
        if let failure { throw failure }
        return records
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
