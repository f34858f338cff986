import Foundation

/// Writes Apple's binary property lists (`bplist00`) in linear time.
///
/// Like Apple's writer it stores each distinct string, integer, real, date and data value
/// once (uniqued by exact content), orders objects depth-first with a dictionary's keys
/// before its values, and picks 1, 2, 4 or 8-byte offsets and references by size. Integers
/// above `Int64.max` are written as 16-byte integers, non-ASCII strings as UTF-16BE.
public struct BinaryPlistWriter {
    /// Write dictionary keys sorted as Apple's tools do instead of in their stored order.
    public var sortKeys: Bool

    public init(sortKeys: Bool = false) { self.sortKeys = sortKeys }

    public func write(_ value: PlistValue) throws -> Data {
        var flattener = BinaryPlistFlattener(sortKeys: sortKeys)
        _ = flattener.flatten(value)
        return flattener.serialize()
    }
}

/// A scalar's identity for uniquing: exact content, so `1` and `1.0` stay two objects.
enum BinaryPlistScalarKey: Hashable {
    case string(PlistKey)
    case integer(PlistInteger)
    case real(UInt64)
    case date(UInt64)
    case data(Data)
    case bool(Bool)
    case uid(UInt64)
}

struct BinaryPlistFlattener {
    let sortKeys: Bool
    /// Objects in index order; containers hold a range into `refs`.
    var objects: [Entry] = []
    var refs: [Int] = []
    var unique: [BinaryPlistScalarKey: Int] = [:]

    enum Entry {
        case scalar(PlistValue)
        case string(String)
        case array(start: Int, count: Int)
        case dictionary(start: Int, count: Int)
    }

    init(sortKeys: Bool) { self.sortKeys = sortKeys }

    mutating func uniqued(_ key: BinaryPlistScalarKey, _ entry: @autoclosure () -> Entry) -> Int {
        if let existing = unique[key] { return existing }
        let index = objects.count
        objects.append(entry())
        unique[key] = index
        return index
    }

    /// Assigns object numbers depth-first and returns the number of `value`.
    mutating func flatten(_ value: PlistValue) -> Int {
        switch value {
        case .string(let string): return uniqued(.string(PlistKey(string)), .string(string))
        case .integer(let integer): return uniqued(.integer(integer), .scalar(value))
        case .real(let real): return uniqued(.real(real.bitPattern), .scalar(value))
        case .date(let date): return uniqued(.date(date.secondsSinceReferenceDate.bitPattern), .scalar(value))
        case .data(let data): return uniqued(.data(data), .scalar(value))
        case .bool(let bool): return uniqued(.bool(bool), .scalar(value))
        case .uid(let uid): return uniqued(.uid(uid), .scalar(value))
        case .array(let items):
            let index = objects.count
            objects.append(.array(start: 0, count: 0))
            let childRefs = items.map { flatten($0) }
            objects[index] = .array(start: refs.count, count: childRefs.count)
            refs.append(contentsOf: childRefs)
            return index
        case .dictionary(var dict):
            let index = objects.count
            objects.append(.dictionary(start: 0, count: 0))
            if sortKeys { dict.sortKeys() }
            var childRefs: [Int] = []
            childRefs.reserveCapacity(dict.count * 2)
            for key in dict.keys { childRefs.append(uniqued(.string(PlistKey(key)), .string(key))) }
            for item in dict.values { childRefs.append(flatten(item)) }
            objects[index] = .dictionary(start: refs.count, count: dict.count)
            refs.append(contentsOf: childRefs)
            return index
        }
    }

    static func byteCount(for value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    func serialize() -> Data {
        var out = [UInt8]()
        out.reserveCapacity(objects.count * 8 + 64)
        out.append(contentsOf: Array("bplist00".utf8))
        let refSize = BinaryPlistFlattener.byteCount(for: UInt64(objects.count))
        var offsets = [Int]()
        offsets.reserveCapacity(objects.count)

        func appendUInt(_ value: UInt64, size: Int) {
            var shift = (size - 1) * 8
            while shift >= 0 {
                out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                shift -= 8
            }
        }
        func appendMarker(_ kind: UInt8, count: Int) {
            if count < 15 {
                out.append(kind << 4 | UInt8(count))
            } else {
                out.append(kind << 4 | 0x0F)
                let size = BinaryPlistFlattener.byteCount(for: UInt64(count))
                out.append(0x10 | UInt8(size.trailingZeroBitCount))
                appendUInt(UInt64(count), size: size)
            }
        }

        for entry in objects {
            offsets.append(out.count)
            switch entry {
            case .string(var string):
                let isASCII = string.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
                if isASCII {
                    string.withUTF8 { bytes in
                        appendMarker(0x5, count: bytes.count)
                        out.append(contentsOf: bytes)
                    }
                } else {
                    appendMarker(0x6, count: string.utf16.count)
                    for unit in string.utf16 {
                        out.append(UInt8(unit >> 8))
                        out.append(UInt8(unit & 0xFF))
                    }
                }
            case .array(let start, let count), .dictionary(let start, let count):
                let isDictionary: Bool
                if case .dictionary = entry { isDictionary = true } else { isDictionary = false }
                appendMarker(isDictionary ? 0xD : 0xA, count: count)
                for ref in refs[start..<(start + (isDictionary ? count * 2 : count))] {
                    appendUInt(UInt64(ref), size: refSize)
                }
            case .scalar(let value):
                switch value {
                case .integer(let integer):
                    if integer.isUnsignedHigh {
                        out.append(0x14)
                        appendUInt(0, size: 8)
                        appendUInt(integer.bits, size: 8)
                    } else if integer.isNegative {
                        out.append(0x13)
                        appendUInt(integer.bits, size: 8)
                    } else {
                        let size = BinaryPlistFlattener.byteCount(for: integer.bits)
                        out.append(0x10 | UInt8(size.trailingZeroBitCount))
                        appendUInt(integer.bits, size: size)
                    }
                case .real(let real):
                    out.append(0x23)
                    appendUInt(real.bitPattern, size: 8)
                case .date(let date):
                    out.append(0x33)
                    appendUInt(date.secondsSinceReferenceDate.bitPattern, size: 8)
                case .data(let data):
                    appendMarker(0x4, count: data.count)
                    out.append(contentsOf: data)
                case .bool(let bool):
                    out.append(bool ? 0x09 : 0x08)
                case .uid(let uid):
                    let size = BinaryPlistFlattener.byteCount(for: uid)
                    out.append(0x80 | UInt8(size - 1))
                    appendUInt(uid, size: size)
                case .string, .array, .dictionary:
                    break
                }
            }
        }
        let tableOffset = out.count
        let offsetSize = BinaryPlistFlattener.byteCount(for: UInt64(tableOffset))
        for offset in offsets { appendUInt(UInt64(offset), size: offsetSize) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0])
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        appendUInt(UInt64(objects.count), size: 8)
        appendUInt(0, size: 8)
        appendUInt(UInt64(tableOffset), size: 8)
        return Data(out)
    }
}
