import Foundation
import SystemSupport

/// Every entry's local header against its central directory record, and the entries' bytes against
/// each other, before an archive is trusted: unzip tools and iOS read an entry's name and data from
/// its local header, this reader (libzip) from the central directory, so the two must agree.
///
/// Checked: the local header is where the record says and has its signature; it names the same
/// bytes; it uses the same compression method; without a data descriptor (flag bit 3) it declares
/// the same compressed size; and no two entries' header-and-data ranges overlap, nor run into the
/// central directory. Extra fields, times and, with a data descriptor, the sizes in the local header
/// may differ: real ipas, Xcode's among them, differ there harmlessly. An archive in ZIP64 form (a
/// count, size or offset saturated at its 16- or 32-bit maximum) is left to libzip.
enum LocalHeaderCheck {
    /// Checks the archive at `path` and returns where each entry's data starts, in central directory
    /// order (nil when the archive is left to libzip); errors name `path` and the entry.
    @discardableResult
    static func check(path: String) throws -> [Int64]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }  // libzip opened it; a file gone since fails on first read
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let fileSize = Int(info.st_size)
        func read(_ offset: Int, _ count: Int) -> [UInt8]? {
            guard offset >= 0, count >= 0, offset + count <= fileSize else { return nil }
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return got == count ? buffer : nil
        }
        func fail(_ message: String, _ name: [UInt8]? = nil) -> IPAError {
            IPAError(message, file: path, entry: name.map { String(decoding: $0, as: UTF8.self) })
        }
        // The end of central directory record: 22 bytes, then a comment of up to 65,535.
        let tailStart = max(0, fileSize - 22 - 0xFFFF)
        guard let tail = read(tailStart, fileSize - tailStart), tail.count >= 22 else { return nil }
        guard let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { u32(tail, $0) == 0x0605_4B50 }) else {
            return nil
        }
        let count = Int(u16(tail, end + 10)), size = Int(u32(tail, end + 12)), start = Int(u32(tail, end + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || start == 0xFFFF_FFFF { return nil }
        guard let directory = read(start, size) else { return nil }
        var ranges: [(range: Range<Int>, name: [UInt8])] = []
        var dataOffsets: [Int64] = []
        var offset = 0
        for _ in 0..<count {
            guard offset + 46 <= directory.count, u32(directory, offset) == 0x0201_4B50 else { return nil }
            let nameLength = Int(u16(directory, offset + 28))
            guard offset + 46 + nameLength <= directory.count else { return nil }
            let name = Array(directory[(offset + 46)..<(offset + 46 + nameLength)])
            let method = u16(directory, offset + 10)
            let compressedSize = Int(u32(directory, offset + 20))
            let headerOffset = Int(u32(directory, offset + 42))
            if compressedSize == 0xFFFF_FFFF || headerOffset == 0xFFFF_FFFF { return nil }
            guard let header = read(headerOffset, 30), u32(header, 0) == 0x0403_4B50 else {
                throw fail("has no local header at offset \(headerOffset), where the central directory puts it", name)
            }
            let localNameLength = Int(u16(header, 26)), extraLength = Int(u16(header, 28))
            let localName = read(headerOffset + 30, localNameLength) ?? []
            guard localName == name else {
                let shown = String(decoding: localName, as: UTF8.self)
                throw fail("has a local header that names '\(shown)' instead", name)
            }
            guard u16(header, 8) == method else {
                throw fail("is compressed with method \(u16(header, 8)) in its local header and \(method) in the central directory", name)
            }
            if u16(header, 6) & 0x8 == 0, Int(u32(header, 18)) != compressedSize {
                throw fail(
                    "declares \(u32(header, 18)) compressed bytes in its local header and \(compressedSize) in the central directory",
                    name)
            }
            let dataEnd = headerOffset + 30 + localNameLength + extraLength + compressedSize
            guard dataEnd <= start else { throw fail("runs into the central directory", name) }
            ranges.append((headerOffset..<dataEnd, name))
            dataOffsets.append(Int64(headerOffset + 30 + localNameLength + extraLength))
            offset += 46 + nameLength + Int(u16(directory, offset + 30)) + Int(u16(directory, offset + 32))
        }
        ranges.sort { $0.range.lowerBound < $1.range.lowerBound }
        for (earlier, later) in zip(ranges, ranges.dropFirst()) where later.range.lowerBound < earlier.range.upperBound {
            throw fail("overlaps the bytes of '\(String(decoding: earlier.name, as: UTF8.self))'", later.name)
        }
        return dataOffsets
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(u16(bytes, at)) | UInt32(u16(bytes, at + 2)) << 16 }
}
