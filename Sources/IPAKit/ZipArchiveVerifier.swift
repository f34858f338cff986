import CLibDeflate
import CLibZip
import CZlib
import Foundation

/// Reopens a freshly written archive and checks every entry's data against the size and CRC
/// in its central directory.
///
/// Deflated entries that adhocbuild made in chunks are checked on all cores: the entry's raw
/// bytes are read back from the archive in order, cut at the chunk boundaries (each chunk is
/// an independent deflate segment ending in a sync-flush marker), inflated in parallel with
/// libdeflate, and their CRCs combined. Other entries are read through libzip, which inflates
/// and checks them itself.
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
        for index in 0..<UInt64(max(count, 0)) {
            if failures.first != nil { break }
            var stat = zip_stat_t()
            guard zip_stat_index(archive, index, 0, &stat) == 0, let rawName = stat.name else {
                throw IPAError("failed verification: \(String(cString: zip_strerror(archive)))", file: displayName)
            }
            let name = String(cString: rawName)
            func fail(_ message: String) -> IPAError { IPAError("failed verification: \(message)", file: displayName, entry: name) }
            if let layout = layouts[name], stat.comp_method == UInt16(ZIP_CM_DEFLATE), layout.segmentLengths.count > 1 {
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
                    slots.wait()
                    group.enter()
                    queue.async {
                        defer { slots.signal(); group.leave() }
                        guard let output = compressed.withUnsafeBytes({ Deflater.inflate($0, size: expected) }) else {
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
                // Stored data is read raw and checked with libdeflate's (much faster) CRC; libzip
                // inflates and checks everything else itself.
                let stored = stat.comp_method == UInt16(ZIP_CM_STORE)
                guard let file = zip_fopen_index(archive, index, stored ? zip_flags_t(ZIP_FL_COMPRESSED) : 0) else {
                    throw fail(String(cString: zip_strerror(archive)))
                }
                var total: Int64 = 0
                var result: Int64 = 0
                var crc: UInt32 = 0
                repeat {
                    result = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64($0.count)) }
                    if result > 0 {
                        total += result
                        if stored { crc = buffer.withUnsafeBytes { Deflater.crc32(crc, UnsafeRawBufferPointer(rebasing: $0[0..<Int(result)])) } }
                    }
                } while result > 0
                let message = result < 0 ? String(cString: zip_file_strerror(file)) : nil
                zip_fclose(file)
                if let message { throw fail(message) }
                guard total == Int64(stat.size) else { throw fail("holds \(total) bytes but declares \(stat.size)") }
                if stored && crc != stat.crc { throw fail(String(format: "CRC %08x does not match the directory's %08x", crc, stat.crc)) }
            }
        }
        group.wait()
        if let failure = failures.first { throw failure }
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
