import Foundation
import SystemSupport

/// Writes plist values as JSON, two spaces per level, keys in their stored order.
///
/// JSON has no dates, data or UIDs, so they are written as: a date as its ISO 8601 string
/// (`"2024-01-31T12:00:00Z"`), data as a base64 string, a UID as `{"CF$UID": n}`. Reading
/// the JSON back therefore gives strings and a dictionary in their place. Reals always
/// carry a `.` or exponent so they read back as reals; NaN and infinity cannot be written.
public struct JSONPlistWriter {
    public var sortKeys: Bool

    public init(sortKeys: Bool = false) { self.sortKeys = sortKeys }

    public func write(_ value: PlistValue) throws -> Data {
        var out = [UInt8]()
        var path: [String] = []
        try append(value, depth: 0, into: &out, path: &path)
        out.append(0x0A)
        return Data(out)
    }

    private func newline(_ depth: Int, _ out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }

    private func append(_ value: PlistValue, depth: Int, into out: inout [UInt8], path: inout [String]) throws {
        switch value {
        case .string(let string): JSONPlistWriter.appendString(string, into: &out)
        case .integer(let integer): out.append(contentsOf: integer.description.utf8)
        case .real(let real):
            guard real.isFinite else {
                throw Diagnostic.plist(
                    .unrepresentable, "JSON cannot hold \(XMLPlistWriter.format(real))",
                    keyPath: PlistKeyPath(path).description)
            }
            out.append(contentsOf: real.description.utf8)
        case .bool(let bool): out.append(contentsOf: (bool ? "true" : "false").utf8)
        case .date(let date):
            guard date.hasISO8601Form else { throw PlistDate.unrepresentable(date, in: "JSON", keyPath: PlistKeyPath(path).description) }
            JSONPlistWriter.appendString(date.iso8601, into: &out)
        case .data(let data):
            out.append(UInt8(ascii: "\""))
            Base64.encode(data, into: &out)
            out.append(UInt8(ascii: "\""))
        case .uid(let uid): out.append(contentsOf: "{\"CF$UID\": \(uid)}".utf8)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1, &out)
                path.append(String(index))
                try append(item, depth: depth + 1, into: &out, path: &path)
                path.removeLast()
            }
            newline(depth, &out)
            out.append(UInt8(ascii: "]"))
        case .dictionary(var dict):
            if dict.isEmpty { out.append(contentsOf: "{}".utf8); return }
            if sortKeys { dict.sortKeys() }
            out.append(UInt8(ascii: "{"))
            for (index, (key, item)) in dict.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1, &out)
                JSONPlistWriter.appendString(key, into: &out)
                out.append(contentsOf: ": ".utf8)
                path.append(key)
                try append(item, depth: depth + 1, into: &out, path: &path)
                path.removeLast()
            }
            newline(depth, &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    static func appendString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case 0x0A: out.append(contentsOf: "\\n".utf8)
            case 0x0D: out.append(contentsOf: "\\r".utf8)
            case 0x09: out.append(contentsOf: "\\t".utf8)
            case 0x00..<0x20: out.append(contentsOf: String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
