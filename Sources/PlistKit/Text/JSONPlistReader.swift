import Foundation
import SystemSupport

/// Reads JSON into plist values: objects become dictionaries (keeping key order), numbers
/// without a fraction or exponent become integers, others reals. `null` has no plist
/// equivalent and is an error naming its key path; so is a repeated key.
///
/// JSON carries no dates or data: strings stay strings (see `JSONPlistWriter`).
public struct JSONPlistReader {
    public var limits: PlistLimits

    public init(limits: PlistLimits = .default) { self.limits = limits }

    public func read(_ data: Data) throws -> PlistValue {
        let bytes = try OpenStepPlistReader.utf8Bytes(data)  // drops a UTF-8 mark, converts UTF-16
        var parser = JSONParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }
}

struct JSONParser {
    let bytes: [UInt8]
    let limits: PlistLimits
    var position = 0
    var path: [String] = []

    init(bytes: [UInt8], limits: PlistLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func error(_ message: String, at offset: Int? = nil) -> Diagnostic {
        Diagnostic.plist(.malformed, "JSON: " + message, at: TextPosition.location(of: offset ?? position, in: bytes))
    }

    func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the file" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(String(UnicodeScalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseDocument() throws -> PlistValue {
        let value = try parseValue()
        skipSpace()
        guard position == bytes.count else { throw error("unexpected \(describe(position)) after the value") }
        return value
    }

    mutating func expect(_ literal: String) throws {
        let utf8 = Array(literal.utf8)
        guard bytes.count - position >= utf8.count, Array(bytes[position..<(position + utf8.count)]) == utf8 else {
            throw error("unexpected \(describe(position)) where a value was expected")
        }
        position += utf8.count
    }

    mutating func parseValue() throws -> PlistValue {
        skipSpace()
        guard position < bytes.count else { throw error("unexpected end of file where a value was expected") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"):
            let start = position
            try expect("null")
            throw Diagnostic.plist(
                .unrepresentable, "JSON null has no plist equivalent",
                at: TextPosition.location(of: start, in: bytes), keyPath: PlistKeyPath(path).description)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describe(position)) where a value was expected")
        }
    }

    mutating func checkDepth() throws {
        if path.count >= limits.maxDepth {
            throw Diagnostic.plist(
                .limitExceeded, "nesting deeper than \(limits.maxDepth) levels",
                at: TextPosition.location(of: position, in: bytes))
        }
    }

    mutating func parseObject() throws -> PlistValue {
        try checkDepth()
        let start = position
        position += 1
        var dict = PlistDictionary()
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .dictionary(dict) }
        while true {
            skipSpace()
            guard position < bytes.count else { throw error("unterminated object (missing '}')", at: start) }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw error("expected a string key, found \(describe(position))")
            }
            let keyStart = position
            let key = try parseString()
            if dict.contains(key) { throw error("key '\(key)' appears twice in the same object", at: keyStart) }
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw error("expected ':' after key '\(key)', found \(describe(position))")
            }
            position += 1
            path.append(key)
            dict.append(key, try parseValue())
            path.removeLast()
            skipSpace()
            guard position < bytes.count else { throw error("unterminated object (missing '}')", at: start) }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "}") { position += 1; return .dictionary(dict) }
            throw error("expected ',' or '}' in an object, found \(describe(position))")
        }
    }

    mutating func parseArray() throws -> PlistValue {
        try checkDepth()
        let start = position
        position += 1
        var items: [PlistValue] = []
        skipSpace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            path.append(String(items.count))
            items.append(try parseValue())
            path.removeLast()
            skipSpace()
            guard position < bytes.count else { throw error("unterminated array (missing ']')", at: start) }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
            throw error("expected ',' or ']' in an array, found \(describe(position))")
        }
    }

    mutating func parseNumber() throws -> PlistValue {
        let start = position
        var isReal = false
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func digits() -> Int {
            let from = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - from
        }
        let intStart = position
        let intDigits = digits()
        guard intDigits > 0 else { throw error("a number needs digits", at: start) }
        if intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") { throw error("numbers cannot start with 0", at: start) }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isReal = true
            position += 1
            guard digits() > 0 else { throw error("a number needs digits after '.'", at: start) }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isReal = true
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else { throw error("a number needs digits in its exponent", at: start) }
        }
        let text = Substring(String(decoding: bytes[start..<position], as: UTF8.self))
        if !isReal {
            guard let integer = PlistInteger(parsing: text) else {
                throw Diagnostic.plist(
                    .unrepresentable, "JSON: \(text) is outside the plist integer range -2^63...2^64-1",
                    at: TextPosition.location(of: start, in: bytes), keyPath: PlistKeyPath(path).description)
            }
            return .integer(integer)
        }
        guard let real = Double(text), real.isFinite else {
            throw error("\(text) is not a finite number", at: start)
        }
        return .real(real)
    }

    mutating func parseString() throws -> String {
        let start = position
        position += 1
        var output: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                output.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            }
            if byte < 0x20 { throw error(String(format: "control character 0x%02X in a string must be escaped", byte)) }
            if byte != UInt8(ascii: "\\") { position += 1; continue }
            output.append(contentsOf: bytes[runStart..<position])
            position += 1
            guard position < bytes.count else { throw error("unterminated string", at: start) }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                let escapeStart = position - 2
                var value = try hex4()
                if value >= 0xD800 && value < 0xDC00 {
                    guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u")
                    else {
                        throw error(String(format: "unpaired surrogate \\u%04X", value), at: escapeStart)
                    }
                    position += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else {
                        throw error(String(format: "unpaired surrogate \\u%04X", value), at: escapeStart)
                    }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                } else if value >= 0xDC00 && value < 0xE000 {
                    throw error(String(format: "unpaired surrogate \\u%04X", value), at: escapeStart)
                }
                output.append(contentsOf: Array(String(UnicodeScalar(value)!).utf8))
            default:
                throw error("unknown escape '\\\(String(UnicodeScalar(escaped)))'", at: position - 2)
            }
            runStart = position
        }
        guard let string = String(validating: output, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: start)
        }
        return string
    }

    mutating func hex4() throws -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let nibble = OpenStepParser.hexValue(bytes[position]) else {
                throw error("\(describe(position)) is not a hexadecimal digit in a \\u escape")
            }
            value = value << 4 | UInt32(nibble)
            position += 1
        }
        return value
    }
}
