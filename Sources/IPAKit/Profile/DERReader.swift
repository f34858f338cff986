import Foundation

/// A minimal BER/DER reader for the parts of CMS (PKCS #7) and X.509 that provisioning
/// profiles use. Every length is checked against its enclosing element; indefinite lengths
/// (BER) are supported for constructed elements; nesting is limited.
struct DERElement {
    /// The identifier octet: class, constructed bit and tag number (low-tag form).
    let tag: UInt8
    let tagNumber: UInt32
    let isConstructed: Bool
    /// The content bytes (for an indefinite length, up to the end-of-contents marker).
    let content: ArraySlice<UInt8>
    /// Offset of the element's first byte in the whole input.
    let offset: Int

    static let maxDepth = 64

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads one element at the start of `bytes`, returning it and the rest.
    static func read(_ bytes: ArraySlice<UInt8>, depth: Int = 0) throws -> (DERElement, ArraySlice<UInt8>) {
        guard depth < maxDepth else { throw Failure(description: "nesting deeper than \(maxDepth) levels") }
        var index = bytes.startIndex
        func next() throws -> UInt8 {
            guard index < bytes.endIndex else { throw Failure(description: "truncated at byte \(index)") }
            defer { index += 1 }
            return bytes[index]
        }
        let start = index
        let identifier = try next()
        var tagNumber = UInt32(identifier & 0x1F)
        if tagNumber == 0x1F {
            tagNumber = 0
            var octet: UInt8
            repeat {
                octet = try next()
                guard tagNumber < (1 << 24) else { throw Failure(description: "tag number too large at byte \(start)") }
                tagNumber = tagNumber << 7 | UInt32(octet & 0x7F)
            } while octet & 0x80 != 0
        }
        let constructed = identifier & 0x20 != 0
        let first = try next()
        if first == 0x80 {
            guard constructed else { throw Failure(description: "indefinite length on a primitive element at byte \(start)") }
            // Walk the children until the end-of-contents marker (00 00).
            var rest = bytes[index...]
            let contentStart = index
            while true {
                guard rest.count >= 2 else { throw Failure(description: "unterminated indefinite length at byte \(start)") }
                if rest[rest.startIndex] == 0 && rest[rest.startIndex + 1] == 0 {
                    let content = bytes[contentStart..<rest.startIndex]
                    return (
                        DERElement(tag: identifier, tagNumber: tagNumber, isConstructed: true, content: content, offset: start),
                        bytes[(rest.startIndex + 2)...]
                    )
                }
                (_, rest) = try read(rest, depth: depth + 1)
            }
        }
        var length = 0
        if first & 0x80 == 0 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw Failure(description: "length of \(count) bytes at byte \(start)") }
            for _ in 0..<count { length = length << 8 | Int(try next()) }
        }
        guard length <= bytes.endIndex - index else {
            throw Failure(description: "element at byte \(start) claims \(length) bytes, more than remain")
        }
        let content = bytes[index..<(index + length)]
        return (
            DERElement(tag: identifier, tagNumber: tagNumber, isConstructed: constructed, content: content, offset: start),
            bytes[(index + length)...]
        )
    }

    /// The element's children, for a constructed element.
    func children(depth: Int = 0) throws -> [DERElement] {
        guard isConstructed else { throw Failure(description: "element at byte \(offset) is not constructed") }
        var result: [DERElement] = []
        var rest = content
        while !rest.isEmpty {
            let (child, remainder) = try DERElement.read(rest, depth: depth + 1)
            result.append(child)
            rest = remainder
        }
        return result
    }

    static let sequence: UInt8 = 0x30
    static let set: UInt8 = 0x31
    static let objectIdentifier: UInt8 = 0x06
    static let octetString: UInt8 = 0x04

    /// The dotted form of an OBJECT IDENTIFIER.
    var objectIdentifierString: String? {
        guard tag == DERElement.objectIdentifier, let first = content.first else { return nil }
        var parts = [UInt64(first / 40), UInt64(first % 40)]
        var value: UInt64 = 0
        for byte in content.dropFirst() {
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { parts.append(value); value = 0 }
        }
        return parts.map(String.init).joined(separator: ".")
    }

    /// The bytes of an OCTET STRING, joining the pieces of a constructed (BER) one.
    func octets(depth: Int = 0) throws -> [UInt8] {
        guard tagNumber == 4 || tag & 0xC0 == 0x80 else { throw Failure(description: "element at byte \(offset) is not an OCTET STRING") }
        if !isConstructed { return Array(content) }
        return try children(depth: depth).flatMap { try $0.octets(depth: depth + 1) }
    }

    /// A string type (UTF8String, PrintableString, IA5String, T61String, BMPString) as text.
    var text: String? {
        switch tag {
        case 0x0C, 0x13, 0x16, 0x14: return String(decoding: content, as: UTF8.self)
        case 0x1E:
            var units: [UInt16] = []
            var index = content.startIndex
            while index + 1 < content.endIndex {
                units.append(UInt16(content[index]) << 8 | UInt16(content[index + 1]))
                index += 2
            }
            return String(decoding: units, as: UTF16.self)
        default: return nil
        }
    }

    /// A UTCTime or GeneralizedTime as a date.
    var date: Date? {
        guard tag == 0x17 || tag == 0x18 else { return nil }
        let text = String(decoding: content, as: UTF8.self)
        var components = DateComponents()
        components.timeZone = TimeZone(identifier: "UTC")
        let digits = Array(text)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= digits.count else { return nil }
            return Int(String(digits[from..<(from + count)]))
        }
        let yearDigits = tag == 0x17 ? 2 : 4
        guard var year = number(0, yearDigits) else { return nil }
        if tag == 0x17 { year += year < 50 ? 2000 : 1900 }
        components.year = year
        components.month = number(yearDigits, 2)
        components.day = number(yearDigits + 2, 2)
        components.hour = number(yearDigits + 4, 2)
        components.minute = number(yearDigits + 6, 2)
        components.second = number(yearDigits + 8, 2) ?? 0
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }
}
