import CLibDeflate
import CLibZip
import CZlib
import Foundation

/// Reopens a freshly written archive and checks every entry's data against the size and CRC
/// in its central directory.
///
/// libzip reopens the archive and checks its structure (every local header against the
/// central directory). The local headers are then walked in order (each must carry the name
/// libzip lists there), and stored entries are checked by reading their bytes directly and
/// taking the CRC with libdeflate — reading them through libzip would add a copy and zlib's
/// slower CRC. Deflated entries that adhocbuild made in chunks are checked on
/// all cores: the entry's raw bytes are read back in order, cut at the chunk boundaries (each
/// chunk is an independent deflate segment ending in a sync-flush marker), inflated in
/// parallel with libdeflate, and their CRCs combined. Other deflated entries are read through
/// libzip, which inflates and checks them itself.
enum ZipArchiveVerifier {
    /// How an entry was laid out when written: its compressed segment lengths and sizes.
    struct Layout {
        var segmentLengths: [Int]
        var uncompressedSize: Int64
        var chunkSize: Int
    }

    static func verify(_ path: String, layouts: [String: Layout], threads: Int, displayName: String) throws {
        var openError: Int32 = 0
        guard let archive = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &openError) else {
            throw IPAError("failed verification: \(ZipArchiveWriter.message(forCode: openError))", file: displayName)
        }
        defer { zip_discard(archive) }
        let failures = FailureBox()
        let queue = DispatchQueue(label: "adhocbuild.verify", attributes: .concurrent)
        let slots = DispatchSemaphore(value: max(1, threads) * 2)
        let group = DispatchGroup()
        let count = zip_get_num_entries(archive, 0)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        let bytes = try ArchiveBytes(path, displayName: displayName)
        var headerOffset = 0
        for index in 0..<UInt64(max(count, 0)) {
            if failures.first != nil { break }
            var stat = zip_stat_t()
            guard zip_stat_index(archive, index, 0, &stat) == 0, let rawName = stat.name else {
                throw IPAError("failed verification: \(String(cString: zip_strerror(archive)))", file: displayName)
            }
            let name = String(cString: rawName)
            @Sendable func fail(_ message: String) -> IPAError { IPAError("failed verification: \(message)", file: displayName, entry: name) }
            guard let dataOffset = try bytes.dataOffset(ofLocalHeaderAt: headerOffset, named: rawName),
                dataOffset + Int(stat.comp_size) <= bytes.count else {
                throw fail("its local header is not where the entries before it end (offset \(headerOffset))")
            }
            headerOffset = dataOffset + Int(stat.comp_size)
            if stat.comp_method == UInt16(ZIP_CM_STORE) {
                guard stat.size == stat.comp_size else { throw fail("stored, yet declares \(stat.size) bytes in \(stat.comp_size)") }
                guard let crc = try bytes.crc(at: dataOffset, length: Int(stat.size)) else { throw fail("the entry's data ends early") }
                if crc != stat.crc { throw fail(String(format: "CRC %08x does not match the directory's %08x", crc, stat.crc)) }
            } else if let layout = layouts[name], stat.comp_method == UInt16(ZIP_CM_DEFLATE), layout.segmentLengths.count > 1 {
                guard Int64(stat.size) == layout.uncompressedSize,
                    Int64(stat.comp_size) == Int64(layout.segmentLengths.reduce(0, +)) else {
                    throw fail("sizes in the archive (\(stat.size), \(stat.comp_size)) are not the ones written")
                }
                guard let file = zip_fopen_index(archive, index, zip_flags_t(ZIP_FL_COMPRESSED)) else {
                    throw fail(String(cString: zip_strerror(archive)))
                }
                defer { zip_fclose(file) }
                let crcs = CRCList(count: layout.segmentLengths.count)
                for (segment, length) in layout.segmentLengths.enumerated() {
                    var compressed = [UInt8](repeating: 0, count: length + 2)
                    var got = 0
                    while got < length {
                        let result = compressed.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress! + got, UInt64(length - got)) }
                        guard result > 0 else { throw fail("the entry's data ends early") }
                        got += Int(result)
                    }
                    let isLast = segment == layout.segmentLengths.count - 1
                    let expected = isLast ? Int(layout.uncompressedSize) - segment * layout.chunkSize : layout.chunkSize
                    if !isLast {
                        guard length >= 4, compressed[(length - 4)..<length].elementsEqual([0, 0, 0xFF, 0xFF]) else {
                            throw fail("chunk \(segment) does not end with a sync-flush marker")
                        }
                        compressed[length] = 0x03  // a final empty block, so the segment inflates on its own
                        compressed[length + 1] = 0x00
                    } else {
                        compressed.removeLast(2)
                    }
                    let segmentBytes = compressed
                    slots.wait()
                    group.enter()
                    queue.async {
                        defer { slots.signal(); group.leave() }
                        guard let output = segmentBytes.withUnsafeBytes({ Deflater.inflate($0, size: expected) }) else {
                            failures.record(fail("chunk \(segment) does not inflate to \(expected) bytes"))
                            return
                        }
                        crcs.set(segment, crc: output.withUnsafeBytes { Deflater.crc32(0, $0) }, length: expected)
                    }
                }
                group.wait()
                if failures.first == nil && crcs.combined != stat.crc {
                    throw fail(String(format: "CRC %08x does not match the directory's %08x", crcs.combined, stat.crc))
                }
            } else {
                // libzip inflates it and checks the CRC itself.
                guard let file = zip_fopen_index(archive, index, 0) else { throw fail(String(cString: zip_strerror(archive))) }
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
        group.wait()
        if let failure = failures.first { throw failure }
    }
}

/// The archive's bytes read directly, for walking its local headers and checking stored data
/// without libzip's copy and CRC.
private final class ArchiveBytes {
    private let fd: Int32
    private let displayName: String
    let count: Int
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)

    init(_ path: String, displayName: String) throws {
        self.displayName = displayName
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IPAError("failed verification: \(String(cString: strerror(errno)))", file: displayName) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw IPAError("failed verification: \(String(cString: strerror(errno)))", file: displayName)
        }
        count = Int(info.st_size)
    }

    deinit { close(fd) }

    /// Reads exactly `length` bytes at `offset` into the buffer's start; false when the file ends first.
    private func read(at offset: Int, length: Int) throws -> Bool {
        var done = 0
        while done < length {
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, length - done, off_t(offset + done)) }
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw IPAError("failed verification: \(String(cString: strerror(errno)))", file: displayName) }
            if got == 0 { return false }
            done += got
        }
        return true
    }

    /// Where the data of the local header at `offset` starts, when a local header naming `name` is there.
    func dataOffset(ofLocalHeaderAt offset: Int, named name: UnsafePointer<CChar>) throws -> Int? {
        let nameLength = strlen(name)
        guard offset >= 0, nameLength <= 0xFFFF, try read(at: offset, length: 30 + nameLength),
            buffer[0] == 0x50, buffer[1] == 0x4B, buffer[2] == 3, buffer[3] == 4,
            Int(buffer[26]) | Int(buffer[27]) << 8 == nameLength,
            memcmp(buffer.withUnsafeBytes { $0.baseAddress! + 30 }, name, nameLength) == 0 else { return nil }
        return offset + 30 + nameLength + (Int(buffer[28]) | Int(buffer[29]) << 8)
    }

    /// The CRC of `length` bytes at `offset`, or nil when the file ends first.
    func crc(at offset: Int, length: Int) throws -> UInt32? {
        var crc: UInt32 = 0
        var done = 0
        while done < length {
            let chunk = min(buffer.count, length - done)
            guard try read(at: offset + done, length: chunk) else { return nil }
            crc = buffer.withUnsafeBytes { Deflater.crc32(crc, UnsafeRawBufferPointer(rebasing: $0[0..<chunk])) }
            done += chunk
        }
        return crc
    }
}

/// CRCs of an entry's chunks, combined in order at the end.
private final class CRCList: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [(crc: UInt32, length: Int)]

    init(count: Int) { values = Array(repeating: (0, 0), count: count) }

    func set(_ index: Int, crc: UInt32, length: Int) {
        lock.lock()
        values[index] = (crc, length)
        lock.unlock()
    }

    var combined: UInt32 {
        lock.lock()
        defer { lock.unlock() }
        var result: UInt = 0
        for (index, value) in values.enumerated() {
            result = index == 0 ? UInt(value.crc) : crc32_combine(result, UInt(value.crc), off_t(value.length))
        }
        return UInt32(truncatingIfNeeded: result)
    }
}

final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var firstError: Error?

    var first: Error? {
        lock.lock()
        defer { lock.unlock() }
        return firstError
    }

    func record(_ error: Error) {
        lock.lock()
        if firstError == nil { firstError = error }
        lock.unlock()
    }
}
