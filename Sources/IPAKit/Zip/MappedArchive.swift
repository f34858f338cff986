import CZlib
import Compression
import Foundation
import SystemSupport

/// A freshly written archive mapped read-only into memory, so its local headers can be walked
/// without a system call per entry, and its stored data checked on every core.
///
/// Only for archives this process has just written: the map is of a file nobody else changes.
// @unchecked Sendable: the map and the descriptor are set once in init and only read afterwards
// (loads from the map, pread), so the CRC workers may share it.
final class MappedArchive: @unchecked Sendable {
    /// A local header found by walking the archive from its start.
    struct LocalEntry {
        /// The name's bytes, as in the header.
        var name: [UInt8]
        var flags: UInt16
        var method: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var headerOffset: Int
        var dataOffset: Int

        var nameText: String { String(decoding: name, as: UTF8.self) }
    }

    let bytes: UnsafeRawBufferPointer
    private let fileDescriptor: Int32
    private let displayName: String

    init(_ path: String, displayName: String) throws {
        self.displayName = displayName
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Diagnostic.ipa("failed verification: \(SystemError.describe(errno))", file: displayName) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0,
            let address = mmap(nil, Int(info.st_size), PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED
        else {
            let reason = info.st_size == 0 ? "the archive is empty" : SystemError.describe(errno)
            close(fd)
            throw Diagnostic.ipa("failed verification: \(reason)", file: displayName)
        }
        fileDescriptor = fd
        bytes = UnsafeRawBufferPointer(start: address, count: Int(info.st_size))
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
        close(fileDescriptor)
    }

    private func uint16(at offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
    private func uint32(at offset: Int) -> UInt32 { UInt32(uint16(at: offset)) | UInt32(uint16(at: offset + 2)) << 16 }

    /// The local headers back to back from offset 0, up to the first record that is not one
    /// (the central directory). Each entry's data must lie inside the file.
    ///
    /// Only the headers are read, yet the kernel maps the pages around each one; the part of
    /// the map already walked is let go every `releaseEvery` bytes (and all of it at the end),
    /// so the pages it holds stay few whatever the archive's size.
    func localEntries(releaseEvery: Int = 8 << 20) throws -> [LocalEntry] {
        var result: [LocalEntry] = []
        var offset = 0
        var released = 0
        defer { release(upTo: bytes.count) }
        while offset + 30 <= bytes.count && uint32(at: offset) == 0x0403_4B50 {
            if offset - released >= releaseEvery {
                release(upTo: offset)
                released = offset
            }
            let nameLength = Int(uint16(at: offset + 26))
            let extraLength = Int(uint16(at: offset + 28))
            let entry = LocalEntry(
                name: Array(bytes[min(offset + 30, bytes.count)..<min(offset + 30 + nameLength, bytes.count)]),
                flags: uint16(at: offset + 6), method: uint16(at: offset + 8), crc: uint32(at: offset + 14),
                compressedSize: Int(uint32(at: offset + 18)), size: Int(uint32(at: offset + 22)),
                headerOffset: offset, dataOffset: offset + 30 + nameLength + extraLength)
            guard entry.dataOffset + entry.compressedSize <= bytes.count else {
                throw Diagnostic.ipa(
                    "failed verification: the local header at offset \(offset) runs past the end of the archive",
                    file: displayName, entry: entry.nameText)
            }
            result.append(entry)
            offset = entry.dataOffset + entry.compressedSize
        }
        return result
    }

    /// A record of the central directory.
    struct CentralRecord {
        /// The name's bytes, as in the record.
        var name: [UInt8]
        var method: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        /// Where the record says the entry's local header is (nil when libzip listed it).
        var localHeaderOffset: Int?

        var nameText: String { String(decoding: name, as: UTF8.self) }
    }

    /// The central directory's records in order, found from the end of central directory record
    /// back; nil when the archive uses ZIP64 (a count, size or offset saturated at its 16- or
    /// 32-bit maximum), whose extra fields are left to libzip.
    func centralDirectory() throws -> [CentralRecord]? {
        func fail(_ message: String) -> Diagnostic { Diagnostic.ipa("failed verification: \(message)", file: displayName) }
        // The record is 22 bytes and may be followed by a comment of up to 65,535.
        var end = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        while end >= lowest && uint32(at: end) != 0x0605_4B50 { end -= 1 }
        guard end >= lowest else { throw fail("it has no end of central directory record") }
        let count = Int(uint16(at: end + 10))
        let size = Int(uint32(at: end + 12))
        let start = Int(uint32(at: end + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || start == 0xFFFF_FFFF { return nil }
        guard start + size <= end else {
            throw fail("its central directory (\(size) bytes at offset \(start)) runs into the end of central directory record")
        }
        var records: [CentralRecord] = []
        records.reserveCapacity(count)
        var offset = start
        for _ in 0..<count {
            let nameLength = offset + 46 <= end ? Int(uint16(at: offset + 28)) : 0
            guard offset + 46 + nameLength <= start + size, uint32(at: offset) == 0x0201_4B50 else {
                throw fail("central directory record \(records.count + 1) of \(count) is missing at offset \(offset)")
            }
            let record = CentralRecord(
                name: Array(bytes[(offset + 46)..<(offset + 46 + nameLength)]), method: uint16(at: offset + 10),
                crc: uint32(at: offset + 16), compressedSize: Int(uint32(at: offset + 20)), size: Int(uint32(at: offset + 24)),
                localHeaderOffset: Int(uint32(at: offset + 42)))
            if record.compressedSize == 0xFFFF_FFFF || record.size == 0xFFFF_FFFF || record.localHeaderOffset == 0xFFFF_FFFF {
                return nil
            }
            records.append(record)
            offset += 46 + nameLength + Int(uint16(at: offset + 30)) + Int(uint16(at: offset + 32))
        }
        guard offset == start + size else {
            throw fail("its central directory holds \(offset - start) bytes of records, not the \(size) its end record declares")
        }
        return records
    }

    /// Lets go of the map's pages below `offset` (rounded down to a page): the file's pages stay
    /// in the page cache, they are just no longer counted as this process's memory.
    private func release(upTo offset: Int) {
        let page = max(1, Int(sysconf(Int32(_SC_PAGESIZE))))
        let end = offset / page * page
        guard end > 0 else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress!), end, MADV_DONTNEED)
    }

    /// `range` of the archive, read from the file rather than the map (so it adds nothing to
    /// the pages the map holds).
    func read(_ range: Range<Int>) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: range.count)
        try result.withUnsafeMutableBytes { try read(range, into: $0.baseAddress!) }
        return result
    }

    /// Reads all of `range` from the file into `destination`, or says why it cannot.
    private func read(_ range: Range<Int>, into destination: UnsafeMutableRawPointer) throws {
        var done = 0
        while done < range.count {
            let got = retryingInterrupted { pread(fileDescriptor, destination + done, range.count - done, off_t(range.lowerBound + done)) }
            guard got > 0 else {
                throw Diagnostic.ipa(
                    "failed verification: \(got == 0 ? "the archive ends early" : SystemError.describe(errno))", file: displayName)
            }
            done += got
        }
    }

    /// The CRC-32 of each of `ranges` (ascending, not overlapping), taken on `threads` threads.
    /// The archive is read in `blockSize` blocks, each through a buffer that stays in its
    /// thread's cache (faster here than taking the CRC over the map itself), and a range that
    /// spans blocks has its pieces' CRCs combined, so one large file is spread over every thread.
    func crcs(of ranges: [Range<Int>], threads: Int, blockSize: Int = 1 << 20) throws -> [UInt32] {
        // Every range cut at block boundaries; pieces of one block sit next to each other.
        var pieces: [(range: Int, bytes: Range<Int>)] = []
        var blocks: [Range<Int>] = []  // the pieces of each block that holds any
        for (index, range) in ranges.enumerated() {
            var start = range.lowerBound
            repeat {
                let end = min(range.upperBound, (start / blockSize + 1) * blockSize)
                if let last = blocks.last, pieces[last.lowerBound].bytes.lowerBound / blockSize == start / blockSize {
                    blocks[blocks.count - 1] = last.lowerBound..<(pieces.count + 1)
                } else {
                    blocks.append(pieces.count..<(pieces.count + 1))
                }
                pieces.append((index, start..<end))
                start = end
            } while start < range.upperBound
        }
        let pieceCRCs = DisjointSlots<UInt32>(count: pieces.count)
        defer { pieceCRCs.deallocate() }
        let (sharedPieces, sharedBlocks) = (pieces, blocks)  // read-only copies the workers share
        let workers = max(1, min(threads, blocks.count))
        // Each worker takes every workers-th block; each piece's slot is written by one worker only.
        try Parallel.forEach(workers) { worker in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 4096)
            defer { buffer.deallocate() }
            for block in stride(from: worker, to: sharedBlocks.count, by: workers) {
                let span =
                    sharedPieces[sharedBlocks[block].lowerBound].bytes
                    .lowerBound..<sharedPieces[sharedBlocks[block].upperBound - 1].bytes.upperBound
                try read(span, into: buffer.baseAddress!)
                for piece in sharedBlocks[block] {
                    let bytes = sharedPieces[piece].bytes
                    let start = bytes.lowerBound - span.lowerBound
                    pieceCRCs.set(piece, Deflater.crc32(0, UnsafeRawBufferPointer(rebasing: buffer[start..<(start + bytes.count)])))
                }
            }
        }
        var result = [UInt32](repeating: 0, count: ranges.count)
        var started = [Bool](repeating: false, count: ranges.count)
        for (piece, (index, range)) in pieces.enumerated() {
            if started[index] {
                result[index] = UInt32(truncatingIfNeeded: crc32_combine(UInt(result[index]), UInt(pieceCRCs[piece]), off_t(range.count)))
            } else {
                result[index] = pieceCRCs[piece]
                started[index] = true
            }
        }
        return result
    }
}

/// Slots that several threads fill, each slot by one thread only, read after they have all finished.
struct DisjointSlots<Element>: @unchecked Sendable {
    // @unchecked: no two threads write the same slot, and reads wait until the writers are done
    // (Parallel.forEach returns only when every iteration has).
    private let storage: UnsafeMutableBufferPointer<Element?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    func set(_ index: Int, _ value: Element) { storage[index] = value }
    /// The value set for `index` (every slot must have been set before it is read).
    subscript(index: Int) -> Element { storage[index]! }
    func deallocate() {
        _ = storage.deinitialize()
        storage.deallocate()
    }
}
