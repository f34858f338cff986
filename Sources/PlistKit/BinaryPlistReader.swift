import Foundation

/// Reads Apple's binary property lists (`bplist00`) strictly.
///
/// Every offset, reference and count is checked against the file before it is used, so a
/// hostile file gives an error naming the object and byte offset, never a crash, a hang or
/// a huge allocation: cycles, references out of range, objects that overlap, counts larger
/// than the file, bytes between the offset table and the trailer, and nesting deeper than
/// the limit are all errors. Objects shared by several containers are decoded once.
public struct BinaryPlistReader {
    public var limits: PlistLimits

    public init(limits: PlistLimits = .default) { self.limits = limits }

    public func read(_ data: Data) throws -> PlistValue {
        try data.withUnsafeBytes { raw in
            var decoder = try BinaryPlistDecoder(bytes: raw, limits: limits)
            return try decoder.decodeDocument()
        }
    }
}

struct BinaryPlistDecoder {
    let bytes: UnsafeRawBufferPointer
    let limits: PlistLimits
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int
    let topObject: Int
    let tableOffset: Int
    var cache: [PlistValue?]
    /// How many values each decoded object expands to, to bound shared-object blow-up.
    var expandedCounts: [Int]
    var inProgress: [Bool]
    var extents: [(start: Int, end: Int, object: Int)] = []

    init(bytes: UnsafeRawBufferPointer, limits: PlistLimits) throws {
        self.bytes = bytes
        self.limits = limits
        guard bytes.count >= 8, bytes.starts(with: "bplist".utf8) else {
            throw PlistError(.malformed, "not a binary plist (no 'bplist' header)", at: .byteOffset(0))
        }
        guard bytes[6] == UInt8(ascii: "0"), bytes[7] == UInt8(ascii: "0") else {
            let version = String(decoding: bytes[6..<8], as: UTF8.self)
            throw PlistError(.malformed, "binary plist version '\(version)' is not supported (only '00')",
                             at: .byteOffset(6))
        }
        guard bytes.count >= 8 + 1 + 32 else {
            throw PlistError(.malformed, "truncated: \(bytes.count) bytes is too short for a binary plist",
                             at: .byteOffset(bytes.count))
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        refSize = Int(bytes[trailer + 7])
        let rawCount = BinaryPlistDecoder.readUInt(bytes, at: trailer + 8, size: 8)
        let rawTop = BinaryPlistDecoder.readUInt(bytes, at: trailer + 16, size: 8)
        let rawTable = BinaryPlistDecoder.readUInt(bytes, at: trailer + 24, size: 8)
        guard [1, 2, 4, 8].contains(offsetSize) else {
            throw PlistError(.malformed, "offset size \(offsetSize) in the trailer is not 1, 2, 4 or 8",
                             at: .byteOffset(trailer + 6))
        }
        guard [1, 2, 4, 8].contains(refSize) else {
            throw PlistError(.malformed, "object reference size \(refSize) in the trailer is not 1, 2, 4 or 8",
                             at: .byteOffset(trailer + 7))
        }
        guard rawCount >= 1, rawCount <= UInt64(bytes.count) else {
            throw PlistError(.malformed, "object count \(rawCount) in the trailer is impossible for a file of "
                                + "\(bytes.count) bytes", at: .byteOffset(trailer + 8))
        }
        objectCount = Int(rawCount)
        guard rawTop < rawCount else {
            throw PlistError(.malformed, "top object \(rawTop) is out of range (there are \(objectCount) objects)",
                             at: .byteOffset(trailer + 16))
        }
        topObject = Int(rawTop)
        guard rawTable >= 9, rawTable < UInt64(trailer) else {
            throw PlistError(.malformed, "offset table position \(rawTable) is outside the file",
                             at: .byteOffset(trailer + 24))
        }
        tableOffset = Int(rawTable)
        let tableEnd = tableOffset + objectCount * offsetSize
        if tableEnd > trailer {
            throw PlistError(.malformed, "the offset table (\(objectCount) entries of \(offsetSize) bytes at byte "
                                + "\(tableOffset)) runs into the trailer", at: .byteOffset(tableOffset))
        }
        if tableEnd < trailer {
            throw PlistError(.malformed, "\(trailer - tableEnd) unexpected bytes between the offset table and "
                                + "the trailer", at: .byteOffset(tableEnd))
        }
        cache = Array(repeating: nil, count: objectCount)
        expandedCounts = Array(repeating: 0, count: objectCount)
        inProgress = Array(repeating: false, count: objectCount)
    }

    static func readUInt(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    func offset(ofObject object: Int) throws -> Int {
        let entry = tableOffset + object * offsetSize
        let value = BinaryPlistDecoder.readUInt(bytes, at: entry, size: offsetSize)
        guard value >= 8, value < UInt64(tableOffset) else {
            throw PlistError(.malformed, "object \(object) has offset \(value), outside the object area "
                                + "(8..<\(tableOffset))", at: .byteOffset(entry))
        }
        return Int(value)
    }

    mutating func decodeDocument() throws -> PlistValue {
        let root = try decode(object: topObject, depth: 0)
        try checkOverlaps()
        return root
    }

    /// Fails when two decoded objects share bytes (or one offset), which no writer produces.
    mutating func checkOverlaps() throws {
        extents.sort { $0.start < $1.start }
        var index = 1
        while index < extents.count {
            let previous = extents[index - 1]
            let current = extents[index]
            if current.start < previous.end {
                throw PlistError(.malformed, "object \(current.object) overlaps object \(previous.object)",
                                 at: .byteOffset(current.start))
            }
            index += 1
        }
    }

    func malformed(_ message: String, _ offset: Int) -> PlistError {
        PlistError(.malformed, message, at: .byteOffset(offset))
    }

    /// Reads the length that follows a marker whose low nibble is 0xF.
    func length(marker: UInt8, at start: Int, object: Int) throws -> (count: Int, dataStart: Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, start + 1) }
        guard start + 1 < tableOffset else { throw malformed("object \(object) is truncated", start) }
        let intMarker = bytes[start + 1]
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
            throw malformed(String(format: "object %d has a bad length marker 0x%02X", object, intMarker), start + 1)
        }
        let size = 1 << Int(intMarker & 0x0F)
        guard start + 2 + size <= tableOffset else { throw malformed("object \(object) is truncated", start) }
        let value = BinaryPlistDecoder.readUInt(bytes, at: start + 2, size: size)
        guard value <= UInt64(tableOffset) else {
            throw malformed("object \(object) claims \(value) items, more than the file holds", start)
        }
        return (Int(value), start + 2 + size)
    }

    mutating func decode(object: Int, depth: Int) throws -> PlistValue {
        if let cached = cache[object] { return cached }
        let start = try offset(ofObject: object)
        if inProgress[object] {
            throw malformed("object \(object) contains itself (a reference cycle)", start)
        }
        let marker = bytes[start]
        let kind = marker >> 4
        var end = start + 1
        let value: PlistValue
        var expanded = 1
        func need(_ size: Int, from: Int) throws {
            guard from + size <= tableOffset, size >= 0 else {
                throw malformed("object \(object) (\(BinaryPlistDecoder.kindName(kind))) runs past the object area", start)
            }
        }
        switch kind {
        case 0x0:
            switch marker {
            case 0x08: value = .bool(false)
            case 0x09: value = .bool(true)
            case 0x00: throw malformed("object \(object) is null, which plists cannot hold", start)
            case 0x0F: throw malformed("object \(object) is a fill byte, not a value", start)
            default: throw malformed(String(format: "object %d has unknown marker 0x%02X", object, marker), start)
            }
        case 0x1:
            let sizeExponent = Int(marker & 0x0F)
            guard sizeExponent <= 4 else {
                throw malformed(String(format: "object %d has unknown integer marker 0x%02X", object, marker), start)
            }
            let size = 1 << sizeExponent
            try need(size, from: start + 1)
            end = start + 1 + size
            if size == 16 {
                let high = BinaryPlistDecoder.readUInt(bytes, at: start + 1, size: 8)
                let low = BinaryPlistDecoder.readUInt(bytes, at: start + 9, size: 8)
                if high == 0 { value = .integer(PlistInteger(low)) }
                else if high == UInt64.max && Int64(bitPattern: low) < 0 {
                    value = .integer(PlistInteger(Int64(bitPattern: low)))
                } else {
                    throw malformed("object \(object) is a 128-bit integer outside -2^63...2^64-1", start)
                }
            } else {
                let raw = BinaryPlistDecoder.readUInt(bytes, at: start + 1, size: size)
                value = .integer(size == 8 ? PlistInteger(Int64(bitPattern: raw)) : PlistInteger(raw))
            }
        case 0x2:
            switch marker & 0x0F {
            case 2:
                try need(4, from: start + 1)
                end = start + 5
                value = .real(Double(Float(bitPattern: UInt32(BinaryPlistDecoder.readUInt(bytes, at: start + 1, size: 4)))))
            case 3:
                try need(8, from: start + 1)
                end = start + 9
                value = .real(Double(bitPattern: BinaryPlistDecoder.readUInt(bytes, at: start + 1, size: 8)))
            default:
                throw malformed(String(format: "object %d has unknown real marker 0x%02X", object, marker), start)
            }
        case 0x3:
            guard marker == 0x33 else {
                throw malformed(String(format: "object %d has unknown date marker 0x%02X", object, marker), start)
            }
            try need(8, from: start + 1)
            end = start + 9
            value = .date(PlistDate(secondsSinceReferenceDate:
                Double(bitPattern: BinaryPlistDecoder.readUInt(bytes, at: start + 1, size: 8))))
        case 0x4:
            let (count, dataStart) = try length(marker: marker, at: start, object: object)
            try need(count, from: dataStart)
            end = dataStart + count
            value = .data(Data(bytes[dataStart..<end]))
        case 0x5:
            let (count, dataStart) = try length(marker: marker, at: start, object: object)
            try need(count, from: dataStart)
            end = dataStart + count
            let slice = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<end])
            if let bad = slice.firstIndex(where: { $0 >= 0x80 }) {
                throw malformed(String(format: "object %d is an ASCII string holding byte 0x%02X", object, slice[bad]),
                                dataStart + bad)
            }
            value = .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (count, dataStart) = try length(marker: marker, at: start, object: object)
            try need(count * 2, from: dataStart)
            end = dataStart + count * 2
            value = .string(try decodeUTF16(from: dataStart, units: count, object: object))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            guard size <= 8 else { throw malformed("object \(object) is a UID of \(size) bytes (at most 8)", start) }
            try need(size, from: start + 1)
            end = start + 1 + size
            value = .uid(BinaryPlistDecoder.readUInt(bytes, at: start + 1, size: size))
        case 0xA, 0xC, 0xD:
            let (count, refsStart) = try length(marker: marker, at: start, object: object)
            let refCount = kind == 0xD ? count * 2 : count
            try need(refCount * refSize, from: refsStart)
            end = refsStart + refCount * refSize
            guard depth < limits.maxDepth else {
                throw PlistError(.limitExceeded, "nesting deeper than \(limits.maxDepth) levels", at: .byteOffset(start))
            }
            inProgress[object] = true
            defer { inProgress[object] = false }
            func child(_ index: Int) throws -> (PlistValue, Int) {
                let refOffset = refsStart + index * refSize
                let ref = BinaryPlistDecoder.readUInt(bytes, at: refOffset, size: refSize)
                guard ref < UInt64(objectCount) else {
                    throw malformed("object \(object) refers to object \(ref), but there are only \(objectCount)",
                                    refOffset)
                }
                let value = try decode(object: Int(ref), depth: depth + 1)
                return (value, expandedCounts[Int(ref)])
            }
            if kind == 0xD {
                var dict = PlistDictionary()
                for index in 0..<count {
                    let (key, keySize) = try child(index)
                    guard case .string(let keyString) = key else {
                        throw malformed("dictionary object \(object) has a \(key.kindName) key; keys must be strings",
                                        refsStart + index * refSize)
                    }
                    if dict.contains(keyString) {
                        throw malformed("dictionary object \(object) has the key '\(keyString)' twice",
                                        refsStart + index * refSize)
                    }
                    let (item, itemSize) = try child(count + index)
                    expanded += keySize + itemSize
                    if expanded > limits.maxValues { throw tooManyValues(start) }
                    dict.append(keyString, item)
                }
                value = .dictionary(dict)
            } else {
                var items: [PlistValue] = []
                items.reserveCapacity(count)
                for index in 0..<count {
                    let (item, itemSize) = try child(index)
                    expanded += itemSize
                    if expanded > limits.maxValues { throw tooManyValues(start) }
                    items.append(item)
                }
                value = .array(items)
            }
        default:
            throw malformed(String(format: "object %d has unknown marker 0x%02X", object, marker), start)
        }
        cache[object] = value
        expandedCounts[object] = expanded
        extents.append((start, end, object))
        return value
    }

    func tooManyValues(_ offset: Int) -> PlistError {
        PlistError(.limitExceeded, "the plist expands to more than \(limits.maxValues) values", at: .byteOffset(offset))
    }

    func decodeUTF16(from start: Int, units count: Int, object: Int) throws -> String {
        var scalars = String.UnicodeScalarView()
        var index = 0
        func unit(_ at: Int) -> UInt16 { UInt16(bytes[start + at * 2]) << 8 | UInt16(bytes[start + at * 2 + 1]) }
        while index < count {
            let first = unit(index)
            if first >= 0xD800 && first < 0xDC00 {
                guard index + 1 < count, case let second = unit(index + 1), second >= 0xDC00 && second < 0xE000 else {
                    throw malformed(String(format: "object %d is a UTF-16 string with an unpaired surrogate 0x%04X",
                                           object, first), start + index * 2)
                }
                let scalar = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
                scalars.append(UnicodeScalar(scalar)!)
                index += 2
            } else if first >= 0xDC00 && first < 0xE000 {
                throw malformed(String(format: "object %d is a UTF-16 string with an unpaired surrogate 0x%04X",
                                       object, first), start + index * 2)
            } else {
                scalars.append(UnicodeScalar(first)!)
                index += 1
            }
        }
        return String(scalars)
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
}
