import PlistKit

/// The DER form of entitlements that iOS 15 and later read: a dictionary is a SET of
/// SEQUENCE { UTF8String key, value } in DER order, an array a SEQUENCE, a string a UTF8String, a
/// boolean a BOOLEAN (content 1 or 0, as Apple writes it), an integer an INTEGER.
public enum DEREntitlements {
    static let boolean: UInt8 = 0x01
    static let integer: UInt8 = 0x02
    static let utf8String: UInt8 = 0x0c
    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    /// Nesting deeper than real entitlements; bounds the recursion hostile input causes.
    static let maxDepth = 32

    /// Encodes `value` (a dictionary, usually).
    public static func encode(_ value: PlistValue) throws -> [UInt8] {
        var out: [UInt8] = []
        try encode(value, into: &out)
        return out
    }

    static func encode(_ value: PlistValue, into out: inout [UInt8]) throws {
        switch value {
        case .bool(let flag): element(boolean, [flag ? 1 : 0], into: &out)
        case .string(let text): element(utf8String, Array(text.utf8), into: &out)
        case .integer(let number):
            guard !number.isUnsignedHigh else {
                throw CodeSignError("entitlement integer \(number) does not fit DER entitlements", location: "entitlements")
            }
            element(integer, integerContent(Int64(bitPattern: number.bits)), into: &out)
        case .array(let items):
            var content: [UInt8] = []
            for item in items { try encode(item, into: &content) }
            element(sequence, content, into: &out)
        case .dictionary(let dictionary):
            var pairs: [[UInt8]] = []
            for (key, item) in dictionary {
                var pair: [UInt8] = []
                element(utf8String, Array(key.utf8), into: &pair)
                try encode(item, into: &pair)
                var wrapped: [UInt8] = []
                element(sequence, pair, into: &wrapped)
                pairs.append(wrapped)
            }
            pairs.sort { $0.lexicographicallyPrecedes($1) }
            element(set, pairs.flatMap { $0 }, into: &out)
        default:
            throw CodeSignError("entitlements hold \(value.kindWithArticle), which DER entitlements cannot carry", location: "entitlements")
        }
    }

    static func element(_ tag: UInt8, _ content: [UInt8], into out: inout [UInt8]) {
        out.append(tag)
        let length = content.count
        if length < 0x80 {
            out.append(UInt8(length))
        } else {
            var bytes: [UInt8] = []
            var rest = length
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xff), at: 0)
                rest >>= 8
            }
            out.append(0x80 | UInt8(bytes.count))
            out.append(contentsOf: bytes)
        }
        out.append(contentsOf: content)
    }

    static func integerContent(_ value: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.bigEndian) { Array($0) }
        while bytes.count > 1, (bytes[0] == 0 && bytes[1] & 0x80 == 0) || (bytes[0] == 0xff && bytes[1] & 0x80 != 0) {
            bytes.removeFirst()
        }
        return bytes
    }

    /// Decodes DER entitlements; dictionaries keep the stored key order.
    public static func decode(_ bytes: [UInt8]) throws -> PlistValue {
        var position = 0
        let value = try decode(bytes, &position, limit: bytes.count, depth: 0)
        guard position == bytes.count else {
            throw CodeSignError.at(position, "DER entitlements have \(bytes.count - position) bytes after the value")
        }
        return value
    }

    static func header(_ bytes: [UInt8], _ position: inout Int, limit: Int) throws -> (tag: UInt8, content: Range<Int>) {
        let start = position
        guard position + 2 <= limit else { throw CodeSignError.at(start, "DER entitlements end inside an element header") }
        let tag = bytes[position]
        var length = Int(bytes[position + 1])
        position += 2
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard count >= 1, count <= 4, position + count <= limit else {
                throw CodeSignError.at(start, "DER entitlements element has a length of \(count) bytes")
            }
            length = bytes[position..<position + count].reduce(0) { $0 << 8 | Int($1) }
            position += count
        }
        guard length <= limit - position else {
            throw CodeSignError.at(start, "DER entitlements element (\(length) bytes) runs past the end")
        }
        let content = position..<position + length
        position += length
        return (tag, content)
    }

    static func decode(_ bytes: [UInt8], _ position: inout Int, limit: Int, depth: Int) throws -> PlistValue {
        guard depth < maxDepth else { throw CodeSignError.at(position, "DER entitlements nest deeper than \(maxDepth) levels") }
        let start = position
        let (tag, content) = try header(bytes, &position, limit: limit)
        switch tag {
        case boolean:
            guard content.count == 1 else { throw CodeSignError.at(start, "DER entitlements boolean of \(content.count) bytes") }
            return .bool(bytes[content.lowerBound] != 0)
        case integer:
            guard content.count >= 1, content.count <= 8 else {
                throw CodeSignError.at(start, "DER entitlements integer of \(content.count) bytes")
            }
            let negative = bytes[content.lowerBound] & 0x80 != 0
            var value: UInt64 = negative ? UInt64.max : 0
            for byte in bytes[content] { value = value << 8 | UInt64(byte) }
            return .integer(PlistInteger(Int64(bitPattern: value)))
        case utf8String:
            guard let text = String(validating: bytes[content], as: UTF8.self) else {
                throw CodeSignError.at(start, "DER entitlements string is not UTF-8")
            }
            return .string(text)
        case sequence:
            var items: [PlistValue] = []
            var inner = content.lowerBound
            while inner < content.upperBound {
                items.append(try decode(bytes, &inner, limit: content.upperBound, depth: depth + 1))
            }
            return .array(items)
        case set:
            var dictionary = PlistDictionary()
            var inner = content.lowerBound
            while inner < content.upperBound {
                let pairStart = inner
                let (pairTag, pair) = try header(bytes, &inner, limit: content.upperBound)
                guard pairTag == sequence else {
                    throw CodeSignError.at(
                        pairStart, "DER entitlements dictionary entry has tag 0x\(String(pairTag, radix: 16)), not a SEQUENCE")
                }
                var at = pair.lowerBound
                guard case .string(let key) = try decode(bytes, &at, limit: pair.upperBound, depth: depth + 1) else {
                    throw CodeSignError.at(pairStart, "DER entitlements dictionary key is not a string")
                }
                let value = try decode(bytes, &at, limit: pair.upperBound, depth: depth + 1)
                guard at == pair.upperBound else { throw CodeSignError.at(pairStart, "DER entitlements dictionary entry has extra bytes") }
                guard !dictionary.contains(key) else { throw CodeSignError.at(pairStart, "DER entitlements repeat the key '\(key)'") }
                dictionary.append(key, value)
            }
            return .dictionary(dictionary)
        default:
            throw CodeSignError.at(start, "DER entitlements hold tag 0x\(String(tag, radix: 16)), which is not a plist type")
        }
    }
}
