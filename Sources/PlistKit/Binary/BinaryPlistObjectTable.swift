import SystemSupport

/// The objects of a binary plist as the trailer and offset table describe them, each checked
/// against the file before use. Both binary readers (the value decoder and the streaming one)
/// read through this type, so every check lives in one place.
struct BinaryPlistObjectTable {
    /// One object, decoded as far as possible without following references.
    enum Object {
        case bool(Bool)
        case integer(PlistInteger)
        case real(Double)
        case date(PlistDate)
        case uid(UInt64)
        /// Byte range of ASCII text.
        case ascii(Range<Int>)
        /// Byte range of UTF-16BE code units.
        case utf16(Range<Int>)
        case data(Range<Int>)
        /// `count` references starting at byte `refs` (a dictionary has `count` keys, then `count` values).
        case array(refs: Int, count: Int)
        case dictionary(refs: Int, count: Int)
    }

    let bytes: UnsafeRawBufferPointer
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let tableOffset: Int
    /// True when object offsets rise strictly with the object number, as every known writer
    /// lays them out; then overlap can be checked object by object instead of by sorting.
    let offsetsAscend: Bool
    /// True when offsets ascend and the first is at least 8 and the last below the offset table,
    /// so every offset is inside the object area and `offset(ofObject:)` need not check each one.
    let offsetsInRange: Bool

    init(bytes: UnsafeRawBufferPointer) throws {
        self.bytes = bytes
        guard bytes.count >= 8, bytes.starts(with: "bplist".utf8) else {
            throw Diagnostic.plist(.malformed, "not a binary plist (no 'bplist' header)", at: .byte(0))
        }
        guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw Diagnostic.plist(
                .malformed, "binary plist version '\(version)' is not supported (only '00')",
                at: .byte(6))
        }
        guard bytes.count >= 8 + 1 + 32 else {
            throw Diagnostic.plist(
                .malformed, "truncated: \(bytes.count) bytes is too short for a binary plist",
                at: .byte(bytes.count))
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        refSize = Int(bytes[trailer + 7])
        let rawCount = BinaryPlistObjectTable.readUInt(bytes, at: trailer + 8, size: 8)
        let rawTop = BinaryPlistObjectTable.readUInt(bytes, at: trailer + 16, size: 8)
        let rawTable = BinaryPlistObjectTable.readUInt(bytes, at: trailer + 24, size: 8)
        guard [1, 2, 4, 8].contains(offsetSize) else {
            throw Diagnostic.plist(
                .malformed, "offset size \(offsetSize) in the trailer is not 1, 2, 4 or 8",
                at: .byte(trailer + 6))
        }
        guard [1, 2, 4, 8].contains(refSize) else {
            throw Diagnostic.plist(
                .malformed, "object reference size \(refSize) in the trailer is not 1, 2, 4 or 8",
                at: .byte(trailer + 7))
        }
        guard rawCount >= 1, rawCount <= UInt64(bytes.count) else {
            throw Diagnostic.plist(
                .malformed,
                "object count \(rawCount) in the trailer is impossible for a file of "
                    + "\(bytes.count) bytes", at: .byte(trailer + 8))
        }
        objectCount = Int(rawCount)
        guard rawTop < rawCount else {
            throw Diagnostic.plist(
                .malformed, "top object \(rawTop) is out of range (there are \(objectCount) objects)",
                at: .byte(trailer + 16))
        }
        topObject = Int(rawTop)
        guard rawTable >= 9, rawTable < UInt64(trailer) else {
            throw Diagnostic.plist(
                .malformed, "offset table position \(rawTable) is outside the file",
                at: .byte(trailer + 24))
        }
        tableOffset = Int(rawTable)
        let tableEnd = tableOffset + objectCount * offsetSize
        if tableEnd > trailer {
            throw Diagnostic.plist(
                .malformed,
                "the offset table (\(objectCount) entries of \(offsetSize) bytes at byte "
                    + "\(tableOffset)) runs into the trailer", at: .byte(tableOffset))
        }
        if tableEnd < trailer {
            throw Diagnostic.plist(
                .malformed,
                "\(trailer - tableEnd) unexpected bytes between the offset table and "
                    + "the trailer", at: .byte(tableEnd))
        }
        var ascending = true
        var previous: UInt64 = 0
        for index in 0..<objectCount {
            let offset = BinaryPlistObjectTable.readUInt(bytes, at: tableOffset + index * offsetSize, size: offsetSize)
            if offset <= previous { ascending = false; break }
            previous = offset
        }
        offsetsAscend = ascending
        offsetsInRange =
            ascending && BinaryPlistObjectTable.readUInt(bytes, at: tableOffset, size: offsetSize) >= 8
            && previous < UInt64(tableOffset)
    }

    @inline(__always)
    static func readUInt(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(bytes[offset])
        case 2: return UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default: break
        }
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    func malformed(_ message: String, _ offset: Int) -> Diagnostic {
        Diagnostic.plist(.malformed, message, at: .byte(offset))
    }

    @inline(__always)
    func offset(ofObject object: Int) throws -> Int {
        let entry = tableOffset + object * offsetSize
        let value = BinaryPlistObjectTable.readUInt(bytes, at: entry, size: offsetSize)
        if offsetsInRange { return Int(value) }
        guard value >= 8, value < UInt64(tableOffset) else {
            throw malformed("object \(object) has offset \(value), outside the object area (8..<\(tableOffset))", entry)
        }
        return Int(value)
    }

    /// The object number stored at `position` (a reference inside `container`), range-checked.
    @inline(__always)
    func reference(at position: Int, in container: Int) throws -> Int {
        let ref = BinaryPlistObjectTable.readUInt(bytes, at: position, size: refSize)
        guard ref < UInt64(objectCount) else {
            throw malformed("object \(container) refers to object \(ref), but there are only \(objectCount)", position)
        }
        return Int(ref)
    }

    /// Fails when `object`, which ends at `end`, runs into the object after it (ascending layouts only).
    @inline(__always)
    func checkFollowingObject(_ object: Int, end: Int) throws {
        guard offsetsAscend else { return }
        let next = object + 1 < objectCount ? try offset(ofObject: object + 1) : tableOffset
        if end > next { throw malformed("object \(object + 1) overlaps object \(object)", next) }
    }

    /// Reads the length that follows a marker whose low nibble is 0xF.
    private func length(marker: UInt8, at start: Int, object: Int) throws -> (count: Int, dataStart: Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, start + 1) }
        guard start + 1 < tableOffset else { throw malformed("object \(object) is truncated", start) }
        let intMarker = bytes[start + 1]
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw malformed("object \(object) has a bad length marker \(hex(intMarker))", start + 1)
        }
        let size = 1 << Int(intMarker & 0x0F)
        guard start + 2 + size <= tableOffset else { throw malformed("object \(object) is truncated", start) }
        let value = BinaryPlistObjectTable.readUInt(bytes, at: start + 2, size: size)
        guard value <= UInt64(tableOffset) else {
            throw malformed("object \(object) claims \(value) items, more than the file holds", start)
        }
        return (Int(value), start + 2 + size)
    }

    func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" : "") + digits
    }

    static func kindName(_ kind: UInt8) -> String {
        switch kind {
        case 0x1: return "integer"
        case 0x2: return "real"
        case 0x3: return "date"
        case 0x4: return "data"
        case 0x5, 0x6: return "string"
        case 0x8: return "uid"
        case 0xA: return "array"
        case 0xC: return "set"
        case 0xD: return "dict"
        default: return "object"
        }
    }

    /// Decodes object `object`, returning it and where its bytes start and end.
    func object(_ object: Int) throws -> (Object, start: Int, end: Int) {
        let start = try offset(ofObject: object)
        let marker = bytes[start]
        let kind = marker >> 4
        func need(_ size: Int, from: Int) throws {
            guard size >= 0, from + size <= tableOffset else {
                throw malformed("object \(object) (\(BinaryPlistObjectTable.kindName(kind))) runs past the object area", start)
            }
        }
        func unknown(_ what: String) -> Diagnostic {
            malformed("object \(object) has unknown \(what)marker \(hex(marker))", start)
        }
        switch kind {
        case 0x0:
            switch marker {
            case 0x08: return (.bool(false), start, start + 1)
            case 0x09: return (.bool(true), start, start + 1)
            case 0x00: throw malformed("object \(object) is null, which plists cannot hold", start)
            case 0x0F: throw malformed("object \(object) is a fill byte, not a value", start)
            default: throw unknown("")
            }
        case 0x1:
            let exponent = Int(marker & 0x0F)
            guard exponent <= 4 else { throw unknown("integer ") }
            let size = 1 << exponent
            try need(size, from: start + 1)
            let end = start + 1 + size
            if size == 16 {
                let high = BinaryPlistObjectTable.readUInt(bytes, at: start + 1, size: 8)
                let low = BinaryPlistObjectTable.readUInt(bytes, at: start + 9, size: 8)
                if high == 0 { return (.integer(PlistInteger(low)), start, end) }
                if high == UInt64.max && Int64(bitPattern: low) < 0 {
                    return (.integer(PlistInteger(Int64(bitPattern: low))), start, end)
                }
                throw malformed("object \(object) is a 128-bit integer outside -2^63...2^64-1", start)
            }
            let raw = BinaryPlistObjectTable.readUInt(bytes, at: start + 1, size: size)
            return (.integer(size == 8 ? PlistInteger(Int64(bitPattern: raw)) : PlistInteger(raw)), start, end)
        case 0x2:
            switch marker & 0x0F {
            case 2:
                try need(4, from: start + 1)
                let bits = UInt32(BinaryPlistObjectTable.readUInt(bytes, at: start + 1, size: 4))
                return (.real(Double(Float(bitPattern: bits))), start, start + 5)
            case 3:
                try need(8, from: start + 1)
                return (.real(Double(bitPattern: BinaryPlistObjectTable.readUInt(bytes, at: start + 1, size: 8))), start, start + 9)
            default:
                throw unknown("real ")
            }
        case 0x3:
            guard marker == 0x33 else { throw unknown("date ") }
            try need(8, from: start + 1)
            let seconds = Double(bitPattern: BinaryPlistObjectTable.readUInt(bytes, at: start + 1, size: 8))
            return (.date(PlistDate(secondsSinceReferenceDate: seconds)), start, start + 9)
        case 0x4, 0x5, 0x6:
            let (count, dataStart) = try length(marker: marker, at: start, object: object)
            let size = kind == 0x6 ? count * 2 : count
            try need(size, from: dataStart)
            let range = dataStart..<(dataStart + size)
            switch kind {
            case 0x4: return (.data(range), start, range.upperBound)
            case 0x5:
                if let bad = BinaryPlistObjectTable.firstNonASCII(in: bytes, range) {
                    throw malformed("object \(object) is an ASCII string holding byte \(hex(bytes[bad]))", bad)
                }
                return (.ascii(range), start, range.upperBound)
            default: return (.utf16(range), start, range.upperBound)
            }
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            guard size <= 8 else { throw malformed("object \(object) is a UID of \(size) bytes (at most 8)", start) }
            try need(size, from: start + 1)
            return (.uid(BinaryPlistObjectTable.readUInt(bytes, at: start + 1, size: size)), start, start + 1 + size)
        case 0xA, 0xC, 0xD:
            let (count, refs) = try length(marker: marker, at: start, object: object)
            let refCount = kind == 0xD ? count * 2 : count
            try need(refCount * refSize, from: refs)
            let end = refs + refCount * refSize
            return (kind == 0xD ? .dictionary(refs: refs, count: count) : .array(refs: refs, count: count), start, end)
        default:
            throw unknown("")
        }
    }

    /// The offset of the first byte of `range` that is 0x80 or above, or nil. Eight bytes at a
    /// time: shared keys and strings are checked every time the walk meets them.
    @inline(__always)
    static func firstNonASCII(in bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        while index + 8 <= range.upperBound,
            bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
            index += 8
        }
        while index < range.upperBound {
            if bytes[index] >= 0x80 { return index }
            index += 1
        }
        return nil
    }

    /// Appends the UTF-8 form of UTF-16BE code units at `range` to `out`, or fails on an unpaired surrogate.
    func appendUTF8(fromUTF16 range: Range<Int>, object: Int, to out: inout [UInt8]) throws {
        var index = range.lowerBound
        @inline(__always) func unit(_ at: Int) -> UInt32 { UInt32(bytes[at]) << 8 | UInt32(bytes[at + 1]) }
        func unpaired(_ value: UInt32, _ at: Int) -> Diagnostic {
            malformed(
                "object \(object) is a UTF-16 string with an unpaired surrogate 0x"
                    + String(value, radix: 16, uppercase: true), at)
        }
        while index < range.upperBound {
            var scalar = unit(index)
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard index + 2 < range.upperBound, case let low = unit(index + 2), low >= 0xDC00 && low < 0xE000 else {
                    throw unpaired(scalar, index)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                index += 4
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw unpaired(scalar, index)
            } else {
                index += 2
            }
            switch scalar {
            case 0..<0x80: out.append(UInt8(scalar))
            case 0x80..<0x800:
                out.append(UInt8(0xC0 | scalar >> 6))
                out.append(UInt8(0x80 | scalar & 0x3F))
            case 0x800..<0x10000:
                out.append(UInt8(0xE0 | scalar >> 12))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            default:
                out.append(UInt8(0xF0 | scalar >> 18))
                out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            }
        }
    }

    /// The text of a string object's bytes.
    func string(_ object: Object, number: Int) throws -> String? {
        switch object {
        case .ascii(let range): return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case .utf16(let range):
            var utf8: [UInt8] = []
            utf8.reserveCapacity(range.count)
            try appendUTF8(fromUTF16: range, object: number, to: &utf8)
            return String(decoding: utf8, as: UTF8.self)
        default: return nil
        }
    }
}

/// Collects object extents when offsets do not ascend, and checks them for overlap at the end.
struct BinaryPlistOverlapCheck {
    private var extents: [(start: Int, end: Int, object: Int)] = []
    let needed: Bool

    init(table: BinaryPlistObjectTable) { needed = !table.offsetsAscend }

    /// Records a decoded object; in ascending layouts it is checked against its neighbour at once.
    @inline(__always)
    mutating func record(_ object: Int, start: Int, end: Int, table: BinaryPlistObjectTable) throws {
        if needed { extents.append((start, end, object)) } else { try table.checkFollowingObject(object, end: end) }
    }

    mutating func finish() throws {
        guard needed else { return }
        extents.sort { $0.start < $1.start }
        var index = 1
        while index < extents.count {
            let previous = extents[index - 1], current = extents[index]
            if current.start < previous.end {
                throw Diagnostic.plist(
                    .malformed, "object \(current.object) overlaps object \(previous.object)",
                    at: .byte(current.start))
            }
            index += 1
        }
    }
}
