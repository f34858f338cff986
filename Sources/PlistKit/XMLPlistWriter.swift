import Foundation

/// Writes Apple's XML property-list layout: the standard header and DOCTYPE, one tab per
/// level, `<dict/>` and `<array/>` for empty containers, dates as `YYYY-MM-DDTHH:MM:SSZ`,
/// data as base64 lines, and reals in the shortest form that reads back to the same bits.
public struct XMLPlistWriter {
    /// Write dictionary keys sorted as Apple's tools do instead of in their stored order.
    public var sortKeys: Bool

    public init(sortKeys: Bool = false) { self.sortKeys = sortKeys }

    static let header = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """.utf8)

    /// Serialises `value`; throws for strings that XML 1.0 cannot carry (most control characters).
    public func write(_ value: PlistValue) throws -> Data {
        var out = [UInt8]()
        out.reserveCapacity(4096)
        out.append(contentsOf: XMLPlistWriter.header)
        var path: [String] = []
        try append(value, depth: 0, into: &out, path: &path)
        out.append(contentsOf: Array("</plist>\n".utf8))
        return Data(out)
    }

    private func indent(_ depth: Int, _ out: inout [UInt8]) {
        for _ in 0..<depth { out.append(0x09) }
    }

    private func tag(_ name: StaticString, _ body: String, depth: Int, _ out: inout [UInt8]) {
        indent(depth, &out)
        out.append(0x3C)
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(0x3E)
        out.append(contentsOf: body.utf8)
        out.append(contentsOf: [0x3C, 0x2F])
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        out.append(contentsOf: [0x3E, 0x0A])
    }

    private func append(_ value: PlistValue, depth: Int, into out: inout [UInt8], path: inout [String]) throws {
        switch value {
        case .string(let string):
            indent(depth, &out)
            out.append(contentsOf: Array("<string>".utf8))
            try XMLPlistWriter.escape(string, into: &out, path: path)
            out.append(contentsOf: Array("</string>\n".utf8))
        case .integer(let integer):
            tag("integer", integer.description, depth: depth, &out)
        case .real(let real):
            tag("real", XMLPlistWriter.format(real), depth: depth, &out)
        case .bool(let bool):
            indent(depth, &out)
            out.append(contentsOf: bool ? Array("<true/>\n".utf8) : Array("<false/>\n".utf8))
        case .date(let date):
            tag("date", date.iso8601, depth: depth, &out)
        case .data(let data):
            indent(depth, &out)
            out.append(contentsOf: Array("<data>\n".utf8))
            Base64.encode(data, lineLength: 76, indent: [UInt8](repeating: 0x09, count: depth), into: &out)
            indent(depth, &out)
            out.append(contentsOf: Array("</data>\n".utf8))
        case .uid(let uid):
            // Core Foundation writes a UID to XML as a one-key dictionary.
            indent(depth, &out)
            out.append(contentsOf: Array("<dict>\n".utf8))
            tag("key", "CF$UID", depth: depth + 1, &out)
            tag("integer", String(uid), depth: depth + 1, &out)
            indent(depth, &out)
            out.append(contentsOf: Array("</dict>\n".utf8))
        case .array(let items):
            indent(depth, &out)
            if items.isEmpty { out.append(contentsOf: Array("<array/>\n".utf8)); return }
            out.append(contentsOf: Array("<array>\n".utf8))
            for (index, item) in items.enumerated() {
                path.append(String(index))
                try append(item, depth: depth + 1, into: &out, path: &path)
                path.removeLast()
            }
            indent(depth, &out)
            out.append(contentsOf: Array("</array>\n".utf8))
        case .dictionary(var dict):
            indent(depth, &out)
            if dict.isEmpty { out.append(contentsOf: Array("<dict/>\n".utf8)); return }
            out.append(contentsOf: Array("<dict>\n".utf8))
            if sortKeys { dict.sortKeys() }
            for (key, item) in dict {
                path.append(key)
                indent(depth + 1, &out)
                out.append(contentsOf: Array("<key>".utf8))
                try XMLPlistWriter.escape(key, into: &out, path: path)
                out.append(contentsOf: Array("</key>\n".utf8))
                try append(item, depth: depth + 1, into: &out, path: &path)
                path.removeLast()
            }
            indent(depth, &out)
            out.append(contentsOf: Array("</dict>\n".utf8))
        }
    }

    /// Appends `string` with `&`, `<`, `>` escaped and carriage returns as `&#13;` (so they survive
    /// XML's line-end normalisation); other C0 controls cannot be written in XML 1.0.
    static func escape(_ string: String, into out: inout [UInt8], path: [String]) throws {
        var copy = string
        try copy.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x3F else {
                    // U+FFFE and U+FFFF (EF BF BE / EF BF BF) are not XML characters either.
                    if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                        throw unrepresentable(UInt32(0xFFFF - (0xBF - UInt32(bytes[index + 2]))), path)
                    }
                    continue
                }
                let replacement: [UInt8]
                switch byte {
                case UInt8(ascii: "&"): replacement = Array("&amp;".utf8)
                case UInt8(ascii: "<"): replacement = Array("&lt;".utf8)
                case UInt8(ascii: ">"): replacement = Array("&gt;".utf8)
                case 0x0D: replacement = Array("&#13;".utf8)
                case 0x09, 0x0A: continue
                case 0x00..<0x20: throw unrepresentable(UInt32(byte), path)
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                out.append(contentsOf: replacement)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
    }

    private static func unrepresentable(_ scalar: UInt32, _ path: [String]) -> PlistError {
        let hex = String(scalar, radix: 16, uppercase: true)
        return PlistError(.unrepresentable,
                          "the string holds U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex), "
                            + "which XML cannot carry; write binary instead",
                          keyPath: PlistKeyPath(path).description)
    }

    /// The shortest decimal that reads back to the same double; whole numbers without `.0`.
    static func format(_ real: Double) -> String {
        if real.isNaN { return "nan" }
        if real.isInfinite { return real < 0 ? "-infinity" : "+infinity" }
        var text = real.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
