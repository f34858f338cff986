import PlistKit
import SystemSupport

extension DEREntitlements {
    /// Decodes DER entitlements in either layout; dictionaries keep the stored key order.
    public static func decode(_ bytes: [UInt8]) throws -> PlistValue {
        var position = 0
        let value: PlistValue
        if bytes.first == applicationWrapper {
            let (_, content) = try header(bytes, &position, limit: bytes.count)
            var inner = content.lowerBound
            let versionStart = inner
            guard case .integer(let version) = try decode(bytes, &inner, limit: content.upperBound, depth: 1),
                Int64(bitPattern: version.bits) == currentVersion, !version.isUnsignedHigh
            else {
                throw Diagnostic.codeSign(at: versionStart, "DER entitlements' [APPLICATION 16] wrapper does not start with INTEGER 1")
            }
            value = try decode(bytes, &inner, limit: content.upperBound, depth: 1)
            guard inner == content.upperBound else {
                throw Diagnostic.codeSign(
                    at:
                        inner, "DER entitlements' [APPLICATION 16] wrapper has \(content.upperBound - inner) bytes after its value")
            }
        } else {
            value = try decode(bytes, &position, limit: bytes.count, depth: 0)
        }
        guard position == bytes.count else {
            throw Diagnostic.codeSign(at: position, "DER entitlements have \(bytes.count - position) bytes after the value")
        }
        return value
    }

    static func header(_ bytes: [UInt8], _ position: inout Int, limit: Int) throws -> (tag: UInt8, content: Range<Int>) {
        let start = position
        guard position + 2 <= limit else { throw Diagnostic.codeSign(at: start, "DER entitlements end inside an element header") }
        let tag = bytes[position]
        var length = Int(bytes[position + 1])
        position += 2
        if length & 0x80 != 0 {
            let count = length & 0x7f
            guard count >= 1, count <= 4, position + count <= limit else {
                throw Diagnostic.codeSign(at: start, "DER entitlements element has a length of \(count) bytes")
            }
            length = bytes[position..<position + count].reduce(0) { $0 << 8 | Int($1) }
            position += count
        }
        guard length <= limit - position else {
            throw Diagnostic.codeSign(at: start, "DER entitlements element (\(length) bytes) runs past the end")
        }
        let content = position..<position + length
        position += length
        return (tag, content)
    }

    static func decode(_ bytes: [UInt8], _ position: inout Int, limit: Int, depth: Int) throws -> PlistValue {
        guard depth < maxDepth else { throw Diagnostic.codeSign(at: position, "DER entitlements nest deeper than \(maxDepth) levels") }
        let start = position
        let (tag, content) = try header(bytes, &position, limit: limit)
        switch tag {
        case boolean:
            guard content.count == 1 else { throw Diagnostic.codeSign(at: start, "DER entitlements boolean of \(content.count) bytes") }
            return .bool(bytes[content.lowerBound] != 0)
        case integer:
            guard content.count >= 1, content.count <= 8 else {
                throw Diagnostic.codeSign(at: start, "DER entitlements integer of \(content.count) bytes")
            }
            let negative = bytes[content.lowerBound] & 0x80 != 0
            var value: UInt64 = negative ? UInt64.max : 0
            for byte in bytes[content] { value = value << 8 | UInt64(byte) }
            return .integer(PlistInteger(Int64(bitPattern: value)))
        case utf8String:
            guard let text = String(validating: bytes[content], as: UTF8.self) else {
                throw Diagnostic.codeSign(at: start, "DER entitlements string is not UTF-8")
            }
            return .string(text)
        case sequence:
            var items: [PlistValue] = []
            var inner = content.lowerBound
            while inner < content.upperBound {
                items.append(try decode(bytes, &inner, limit: content.upperBound, depth: depth + 1))
            }
            return .array(items)
        case set, contextDictionary:
            return .dictionary(try dictionary(bytes, content, depth: depth))
        default:
            throw Diagnostic.codeSign(at: start, "DER entitlements hold tag 0x\(String(tag, radix: 16)), which is not a plist type")
        }
    }

    /// The `SEQUENCE { UTF8String key, value }` pairs of a dictionary's content.
    private static func dictionary(_ bytes: [UInt8], _ content: Range<Int>, depth: Int) throws -> PlistDictionary {
        var dictionary = PlistDictionary()
        var inner = content.lowerBound
        while inner < content.upperBound {
            let pairStart = inner
            let (pairTag, pair) = try header(bytes, &inner, limit: content.upperBound)
            guard pairTag == sequence else {
                throw Diagnostic.codeSign(
                    at:
                        pairStart, "DER entitlements dictionary entry has tag 0x\(String(pairTag, radix: 16)), not a SEQUENCE")
            }
            var at = pair.lowerBound
            guard case .string(let key) = try decode(bytes, &at, limit: pair.upperBound, depth: depth + 1) else {
                throw Diagnostic.codeSign(at: pairStart, "DER entitlements dictionary key is not a string")
            }
            let value = try decode(bytes, &at, limit: pair.upperBound, depth: depth + 1)
            guard at == pair.upperBound else {
                throw Diagnostic.codeSign(at: pairStart, "DER entitlements dictionary entry has extra bytes")
            }
            guard !dictionary.contains(key) else { throw Diagnostic.codeSign(at: pairStart, "DER entitlements repeat the key '\(key)'") }
            dictionary.append(key, value)
        }
        return dictionary
    }
}
