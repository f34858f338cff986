import Foundation
import SystemSupport

/// Reads old-style ASCII property lists: `project.pbxproj`, `.strings` files and other
/// NeXTSTEP/OpenStep text plists. Keeps every value's byte range (see `OpenStepNode`).
///
/// Input is UTF-8 (a byte-order mark is skipped) or UTF-16 with a byte-order mark, which is
/// converted to UTF-8 first; byte ranges then refer to the UTF-8 form. A top level of
/// `key = value;` pairs without braces (a `.strings` file) reads as a dictionary, and so
/// does white space alone; an empty file (or a byte-order mark alone) is an error, as in
/// Core Foundation. `key;` without `= value` means `key = key;`, as Core Foundation reads it.
public struct OpenStepPlistReader {
    public var limits: PlistLimits

    public init(limits: PlistLimits = .default) { self.limits = limits }

    public func read(_ data: Data) throws -> PlistValue {
        try readDocument(data).value
    }

    /// Parses `data` keeping byte ranges.
    public func readDocument(_ data: Data) throws -> OpenStepNode {
        let bytes = try OpenStepPlistReader.utf8Bytes(data)
        if bytes.isEmpty {
            throw Diagnostic.plist(
                .malformed,
                data.isEmpty
                    ? "the file is empty; a property list needs at least a value"
                    : "the file holds only a byte-order mark and no value",
                at: .byte(data.count))
        }
        var parser = OpenStepParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }

    /// Whether `byte` may appear in an unquoted OpenStep string (`A-Z a-z 0-9 _ $ / : . -`, the
    /// set Core Foundation reads; `+` is not in it, so Xcode quotes `"libc++"`).
    public static func isUnquotedCharacter(_ byte: UInt8) -> Bool { OpenStepParser.isUnquotedCharacter(byte) }

    /// The text as UTF-8, after a UTF-8 byte-order mark is dropped or UTF-16 (with a mark) is converted.
    static func utf8Bytes(_ data: Data) throws -> [UInt8] {
        if data.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || data.starts(with: [0x00, 0x00, 0xFE, 0xFF]) {
            throw Diagnostic.plist(
                .malformed, "UTF-32 text (it starts with a UTF-32 byte-order mark) is not supported; save it as UTF-8",
                at: .byte(0))
        }
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) {
            let bigEndian = data.first == 0xFE
            guard data.count % 2 == 0 else {
                throw Diagnostic.plist(.malformed, "UTF-16 text with an odd number of bytes", at: .byte(data.count - 1))
            }
            let units = stride(from: 2, to: data.count, by: 2).map { index -> UInt16 in
                let a = UInt16(data[data.startIndex + index]), b = UInt16(data[data.startIndex + index + 1])
                return bigEndian ? a << 8 | b : b << 8 | a
            }
            var scalars = String.UnicodeScalarView()
            for result in UTF16.decode(units) {
                guard let scalar = result else {
                    throw Diagnostic.plist(.malformed, "invalid UTF-16 (an unpaired surrogate)")
                }
                scalars.append(scalar)
            }
            return Array(String(scalars).utf8)
        }
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return bytes
    }
}

extension UTF16 {
    /// Decodes code units, yielding nil for each invalid sequence.
    static func decode(_ units: [UInt16]) -> [UnicodeScalar?] {
        var iterator = units.makeIterator()
        var decoder = UTF16()
        var result: [UnicodeScalar?] = []
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): result.append(scalar)
            case .emptyInput: break loop
            case .error: result.append(nil)
            }
        }
        return result
    }
}

struct OpenStepParser {
    let bytes: [UInt8]
    let limits: PlistLimits
    var position = 0
    var depth = 0

    init(bytes: [UInt8], limits: PlistLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func error(_ message: String, at offset: Int? = nil) -> Diagnostic {
        Diagnostic.plist(.malformed, message, at: TextPosition.location(of: offset ?? position, in: bytes))
    }

    static func isUnquotedCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"),
            UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Skips white space and `//` and `/* */` comments.
    mutating func skipTrivia() throws {
        while position < bytes.count {
            let byte = bytes[position]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C {
                position += 1
            } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "/") {
                while position < bytes.count, bytes[position] != 0x0A { position += 1 }
            } else if byte == UInt8(ascii: "/"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "*") {
                let start = position
                position += 2
                while true {
                    guard position + 1 < bytes.count else { throw error("unterminated /* comment", at: start) }
                    if bytes[position] == UInt8(ascii: "*") && bytes[position + 1] == UInt8(ascii: "/") {
                        position += 2
                        break
                    }
                    position += 1
                }
            } else {
                return
            }
        }
    }

    func describe(_ offset: Int) -> String {
        guard offset < bytes.count else { return "the end of the file" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "'\(String(UnicodeScalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    mutating func parseDocument() throws -> OpenStepNode {
        try skipTrivia()
        guard position < bytes.count else {
            return OpenStepNode(kind: .dictionary([]), range: 0..<0)  // an empty .strings file
        }
        let first = try parseValue()
        try skipTrivia()
        if position < bytes.count, bytes[position] == UInt8(ascii: "=") || bytes[position] == UInt8(ascii: ";"),
            case .string = first.kind
        {
            // A .strings file: `key = value;` pairs with no braces.
            position = first.range.lowerBound
            let pairs = try parsePairs(until: nil)
            return OpenStepNode(kind: .dictionary(pairs), range: 0..<bytes.count)
        }
        guard position == bytes.count else {
            throw error("unexpected \(describe(position)) after the root value")
        }
        return first
    }

    mutating func parseValue() throws -> OpenStepNode {
        try skipTrivia()
        guard position < bytes.count else { throw error("unexpected end of file where a value was expected") }
        let start = position
        switch bytes[position] {
        case UInt8(ascii: "{"):
            try enter(start)
            defer { depth -= 1 }
            position += 1
            let pairs = try parsePairs(until: UInt8(ascii: "}"))
            return OpenStepNode(kind: .dictionary(pairs), range: start..<position)
        case UInt8(ascii: "("):
            try enter(start)
            defer { depth -= 1 }
            position += 1
            var items: [OpenStepNode] = []
            while true {
                try skipTrivia()
                guard position < bytes.count else { throw error("unterminated array (missing ')')", at: start) }
                if bytes[position] == UInt8(ascii: ")") { position += 1; break }
                items.append(try parseValue())
                try skipTrivia()
                guard position < bytes.count else { throw error("unterminated array (missing ')')", at: start) }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                guard bytes[position] == UInt8(ascii: ")") else {
                    throw error("expected ',' or ')' in an array, found \(describe(position))")
                }
            }
            return OpenStepNode(kind: .array(items), range: start..<position)
        case UInt8(ascii: "<"):
            return try parseData()
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return try parseQuotedString()
        case let byte where OpenStepParser.isUnquotedCharacter(byte):
            while position < bytes.count, OpenStepParser.isUnquotedCharacter(bytes[position]) { position += 1 }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            return OpenStepNode(kind: .string(text, quoted: false), range: start..<position)
        default:
            throw error("unexpected \(describe(position)) where a value was expected")
        }
    }

    mutating func enter(_ start: Int) throws {
        depth += 1
        if depth > limits.maxDepth {
            throw Diagnostic.plist(
                .limitExceeded, "nesting deeper than \(limits.maxDepth) levels",
                at: TextPosition.location(of: start, in: bytes))
        }
    }

    mutating func parsePairs(until terminator: UInt8?) throws -> [(key: OpenStepNode, value: OpenStepNode)] {
        var pairs: [(key: OpenStepNode, value: OpenStepNode)] = []
        var seen = Set<PlistKey>()
        let start = position
        while true {
            try skipTrivia()
            if position == bytes.count {
                if terminator == nil { return pairs }
                throw error("unterminated dictionary (missing '}')", at: start - 1)
            }
            if let terminator, bytes[position] == terminator { position += 1; return pairs }
            let key = try parseValue()
            guard case .string(let keyString, _) = key.kind else {
                throw error("dictionary keys must be strings", at: key.range.lowerBound)
            }
            if !seen.insert(PlistKey(keyString)).inserted {
                throw error("key '\(keyString)' appears twice in the same dictionary", at: key.range.lowerBound)
            }
            try skipTrivia()
            if position < bytes.count, bytes[position] == UInt8(ascii: ";") {
                // `key;` is short for `key = key;`.
                position += 1
                pairs.append((key, key))
                continue
            }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                throw error("expected '=' after key '\(keyString)', found \(describe(position))")
            }
            position += 1
            let value = try parseValue()
            try skipTrivia()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ";") else {
                throw error("expected ';' after the value of '\(keyString)', found \(describe(position))")
            }
            position += 1
            pairs.append((key, value))
        }
    }

    mutating func parseData() throws -> OpenStepNode {
        let start = position
        position += 1
        var output: [UInt8] = []
        var high: UInt8? = nil
        while true {
            guard position < bytes.count else { throw error("unterminated data (missing '>')", at: start) }
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") { position += 1; break }
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1; continue }
            guard let nibble = OpenStepParser.hexValue(byte) else {
                throw error("\(describe(position)) is not a hexadecimal digit in <data>")
            }
            if let pending = high { output.append(pending << 4 | nibble); high = nil } else { high = nibble }
            position += 1
        }
        if high != nil { throw error("<data> has an odd number of hexadecimal digits", at: start) }
        return OpenStepNode(kind: .data(output), range: start..<position)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Reads up to `maxDigits` hexadecimal digits; returns their value and how many there were.
    mutating func readHex(upTo maxDigits: Int) -> (UInt32, Int) {
        var value: UInt32 = 0
        var digits = 0
        while digits < maxDigits, position < bytes.count, let nibble = OpenStepParser.hexValue(bytes[position]) {
            value = value << 4 | UInt32(nibble)
            position += 1
            digits += 1
        }
        return (value, digits)
    }

    mutating func parseQuotedString() throws -> OpenStepNode {
        let start = position
        let quote = bytes[position]
        position += 1
        var output: [UInt8] = []
        var runStart = position
        while true {
            guard position < bytes.count else { throw error("unterminated quoted string", at: start) }
            let byte = bytes[position]
            if byte == quote {
                output.append(contentsOf: bytes[runStart..<position])
                position += 1
                break
            }
            if byte != UInt8(ascii: "\\") { position += 1; continue }
            output.append(contentsOf: bytes[runStart..<position])
            position += 1
            guard position < bytes.count else { throw error("unterminated quoted string", at: start) }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "a"): output.append(0x07)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "v"): output.append(0x0B)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = UInt32(escaped - UInt8(ascii: "0"))
                var digits = 1
                while digits < 3, position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[position]) {
                    value = value * 8 + UInt32(bytes[position] - UInt8(ascii: "0"))
                    position += 1
                    digits += 1
                }
                guard value < 0o200 else {
                    // Core Foundation reads these through the NeXTSTEP character set, which PlistKit does not carry.
                    throw error(
                        String(format: "octal escape \\%03o is a NeXTSTEP character, not ASCII; write it as a \\U escape", value),
                        at: position - digits - 1)
                }
                output.append(UInt8(value))
            case UInt8(ascii: "U"):
                var (value, digits) = readHex(upTo: 4)
                guard digits > 0 else { throw error("\\U escape without hexadecimal digits", at: position - 2) }
                if value >= 0xD800 && value < 0xDC00, position + 1 < bytes.count,
                    bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "U")
                {
                    // A surrogate pair written as two \U escapes.
                    let save = position
                    position += 2
                    let (low, _) = readHex(upTo: 4)
                    if low >= 0xDC00 && low < 0xE000 {
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        position = save
                    }
                }
                guard let scalar = UnicodeScalar(value) else {
                    throw error(String(format: "\\U%04X is not a Unicode character", value), at: position - digits - 2)
                }
                output.append(contentsOf: Array(String(scalar).utf8))
            default:
                output.append(escaped)
            }
            runStart = position
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw error("quoted string is not valid UTF-8", at: start)
        }
        return OpenStepNode(kind: .string(text, quoted: true), range: start..<position)
    }
}
