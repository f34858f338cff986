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
/// may differ: real ipas, Xcode's among them, differ there harmlessly. In ZIP64 form (an app over
/// 4 GB, or over 65,535 entries) the count, sizes and offsets saturated at their 16- or 32-bit
/// maximum are read from the ZIP64 end record and each entry's ZIP64 extra field, as unzip does.
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
        func fail(_ message: String, _ name: [UInt8]? = nil) -> Diagnostic {
            Diagnostic.ipa(message, file: path, entry: name.map { String(decoding: $0, as: UTF8.self) })
        }
        // The end of central directory record: 22 bytes, then a comment of up to 65,535.
        let tailStart = max(0, fileSize - 22 - 0xFFFF)
        guard let tail = read(tailStart, fileSize - tailStart), tail.count >= 22 else { return nil }
        guard let end = stride(from: tail.count - 22, through: 0, by: -1).first(where: { u32(tail, $0) == 0x0605_4B50 }) else {
            return nil
        }
        var count = Int(u16(tail, end + 10)), size = Int(u32(tail, end + 12)), start = Int(u32(tail, end + 16))
        // ZIP64: a locator just before the end record points at the ZIP64 end record, which holds the
        // real count, size and offset. Without a locator a saturated value is the value itself.
        if count == 0xFFFF || size == 0xFFFF_FFFF || start == 0xFFFF_FFFF, let locator = read(tailStart + end - 20, 20),
            u32(locator, 0) == 0x0706_4B50
        {
            guard let record = u64(locator, 8).flatMap({ read($0, 56) }), u32(record, 0) == 0x0606_4B50,
                let count64 = u64(record, 32), let size64 = u64(record, 40), let start64 = u64(record, 48)
            else { throw fail("has a ZIP64 locator that points at no ZIP64 end record") }
            (count, size, start) = (count64, size64, start64)
        }
        guard let directory = read(start, size) else { return nil }
        var ranges: [(range: Range<Int>, name: [UInt8])] = []
        var dataOffsets: [Int64] = []
        var offset = 0
        for _ in 0..<count {
            guard offset + 46 <= directory.count, u32(directory, offset) == 0x0201_4B50 else { return nil }
            let nameLength = Int(u16(directory, offset + 28)), centralExtraLength = Int(u16(directory, offset + 30))
            let extraStart = offset + 46 + nameLength
            guard extraStart + centralExtraLength <= directory.count else { return nil }
            let name = Array(directory[(offset + 46)..<(offset + 46 + nameLength)])
            let method = u16(directory, offset + 10)
            guard
                let central = ZIP64Sizes(
                    uncompressed: u32(directory, offset + 24), compressed: u32(directory, offset + 20),
                    headerOffset: u32(directory, offset + 42), extra: directory[extraStart..<(extraStart + centralExtraLength)])
            else { throw fail("has a size or offset of 0xFFFFFFFF and no ZIP64 field giving the real one", name) }
            let compressedSize = central.compressed, headerOffset = central.headerOffset
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
            if u16(header, 6) & 0x8 == 0 {
                let local = ZIP64Sizes(
                    uncompressed: u32(header, 22), compressed: u32(header, 18), headerOffset: 0,
                    extra: ArraySlice(read(headerOffset + 30 + localNameLength, extraLength) ?? []))
                guard let declared = local?.compressed else {
                    throw fail("has a size of 0xFFFFFFFF in its local header and no ZIP64 field giving the real one", name)
                }
                guard declared == compressedSize else {
                    throw fail(
                        "declares \(declared) compressed bytes in its local header and \(compressedSize) in the central directory", name)
                }
            }
            let dataEnd = headerOffset + 30 + localNameLength + extraLength + compressedSize
            guard dataEnd <= start else { throw fail("runs into the central directory", name) }
            ranges.append((headerOffset..<dataEnd, name))
            dataOffsets.append(Int64(headerOffset + 30 + localNameLength + extraLength))
            offset = extraStart + centralExtraLength + Int(u16(directory, offset + 32))
        }
        ranges.sort { $0.range.lowerBound < $1.range.lowerBound }
        for (earlier, later) in zip(ranges, ranges.dropFirst()) where later.range.lowerBound < earlier.range.upperBound {
            throw fail("overlaps the bytes of '\(String(decoding: earlier.name, as: UTF8.self))'", later.name)
        }
        return dataOffsets
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { UInt32(u16(bytes, at)) | UInt32(u16(bytes, at + 2)) << 16 }
    /// A little-endian 64-bit value as an `Int`; nil when it does not fit (no file is that large).
    private static func u64(_ bytes: [UInt8], _ at: Int) -> Int? {
        let value = UInt64(u32(bytes, at)) | UInt64(u32(bytes, at + 4)) << 32
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// An entry's sizes and local header offset, with the ones saturated at 0xFFFFFFFF read from its
    /// ZIP64 extended information field (header id 1), which holds, in this order and only for the
    /// saturated ones, the uncompressed size, the compressed size and the offset.
    struct ZIP64Sizes {
        var compressed: Int
        var headerOffset: Int

        /// Nil when a value is saturated and the extra fields hold no ZIP64 field long enough to give it.
        init?(uncompressed: UInt32, compressed: UInt32, headerOffset: UInt32, extra: ArraySlice<UInt8>) {
            self.compressed = Int(compressed)
            self.headerOffset = Int(headerOffset)
            let saturated = [uncompressed, compressed, headerOffset].map { $0 == 0xFFFF_FFFF }
            guard saturated.contains(true) else { return }
            guard let field = Self.zip64Field(in: Array(extra)) else { return nil }
            var values: [Int?] = [nil, nil, nil]
            var position = 0
            for index in 0..<3 where saturated[index] {
                guard position + 8 <= field.count else { return nil }
                values[index] = LocalHeaderCheck.u64(field, position)
                guard values[index] != nil else { return nil }
                position += 8
            }
            if let value = values[1] { self.compressed = value }
            if let value = values[2] { self.headerOffset = value }
        }

        /// The data of the ZIP64 field among `extra`'s fields (id, length, data), if there is one.
        static func zip64Field(in extra: [UInt8]) -> [UInt8]? {
            var position = 0
            while position + 4 <= extra.count {
                let id = LocalHeaderCheck.u16(extra, position), length = Int(LocalHeaderCheck.u16(extra, position + 2))
                guard position + 4 + length <= extra.count else { return nil }
                if id == 1 { return Array(extra[(position + 4)..<(position + 4 + length)]) }
                position += 4 + length
            }
            return nil
        }
    }
}
