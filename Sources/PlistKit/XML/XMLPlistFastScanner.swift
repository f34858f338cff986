import Foundation

/// Reads the plain XML that plist writers produce, without libxml2 and several times faster,
/// through the same `XMLPlistParseState` checks; it declines every document outside a strict
/// subset of XML, and every document with an error.
///
/// The subset: UTF-8 starting with `<` (no byte-order mark); `<?xml version="1.0"
/// encoding="UTF-8"?>` (or `utf-8`, or no encoding) only at the very start; Apple's DOCTYPE
/// exactly; plist elements written `<name>`, `</name>` or `<name/>` without attributes or
/// inner spaces, except `<plist version="1.0">`; space, tab and line feed between elements;
/// text of XML characters in valid UTF-8 without carriage returns, with the five predefined
/// entities and character references. Comments, processing instructions, CDATA sections and
/// everything else make it decline. Inside the subset a document is well-formed XML exactly
/// when this reader accepts it, and it gets the same text libxml2 would give.
///
/// When it declines (returns false) the sink may have received part of the document and must
/// be dropped: the caller reads the document again through libxml2 into a fresh sink, so errors
/// and documents outside the subset are handled, and reported, exactly as before.
enum XMLPlistFastScanner {
    /// Sends the document in `bytes` to `sink`; false when it declines (see the type).
    static func read(_ bytes: UnsafeRawBufferPointer, limits: PlistLimits, into sink: PlistEventSink) -> Bool {
        guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0,
            start.pointee == UInt8(ascii: "<")
        else { return false }
        let state = XMLPlistParseBox(XMLPlistParseState(limits: limits, sink: sink))
        var scanner = Scanner(position: start, end: start + bytes.count)
        defer {
            scanner.decoded.deallocate()
            scanner.open.deallocate()
        }
        return scanner.document(state)
    }

    /// Libxml2 nests elements 256 deep unless told otherwise; deeper documents are left to it.
    static let maximumDepth = 256

    private struct Scanner {
        var position: UnsafePointer<UInt8>
        let end: UnsafePointer<UInt8>
        /// The open container elements, to match end tags (`openCount` of them; raw storage,
        /// since a stack in an array was checked for uniqueness on every push and pop).
        let open = UnsafeMutablePointer<XMLPlistParseState.Element>.allocate(capacity: XMLPlistFastScanner.maximumDepth)
        var openCount = 0
        /// Text whose references were replaced, when a scalar has any.
        var decoded = XMLTextBuffer()

        init(position: UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) {
            self.position = position
            self.end = end
        }

        /// Moves past `literal` when the input continues with it.
        @inline(__always) mutating func skip(_ literal: StaticString) -> Bool {
            guard XMLPlistFastScanner.matches(literal, at: position, end) else { return false }
            position += literal.utf8CodeUnitCount
            return true
        }

        @inline(__always) mutating func skipSpace() {
            while position < end {
                let byte = position.pointee
                guard byte == 0x20 || byte == 0x0A || byte == 0x09 else { return }
                position += 1
            }
        }

        /// Reads a plist element name (lowercase letters).
        @inline(__always) mutating func name() -> XMLPlistParseState.Element? {
            let start = position
            while position < end, position.pointee >= UInt8(ascii: "a"), position.pointee <= UInt8(ascii: "z") { position += 1 }
            return XMLPlistParseState.element(named: UnsafeBufferPointer(start: start, count: position - start))
        }

        mutating func document(_ state: XMLPlistParseBox) -> Bool {
            if skip("<?xml") {
                guard
                    skip(" version=\"1.0\" encoding=\"UTF-8\"?>") || skip(" version=\"1.0\" encoding=\"utf-8\"?>")
                        || skip(" version=\"1.0\"?>")
                else { return false }
            }
            skipSpace()
            if skip("<!DOCTYPE") {
                guard skip(" plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">")
                else { return false }
            }
            var sawRoot = false
            while true {
                skipSpace()
                if position == end { break }
                guard position.pointee == UInt8(ascii: "<"), !(sawRoot && openCount == 0) else { return false }
                position += 1
                if skip("/") {
                    guard let element = name(), skip(">"), openCount > 0, open[openCount - 1] == element else { return false }
                    openCount -= 1
                    state.parser.endElement(nil, text: UnsafeBufferPointer(start: position, count: 0))
                } else {
                    guard let element = name(), openCount < XMLPlistFastScanner.maximumDepth else { return false }
                    sawRoot = true
                    if skip("/>") {
                        state.parser.startElement(nil, element)
                        state.parser.endElement(nil, text: UnsafeBufferPointer(start: position, count: 0))
                    } else {
                        guard skip(">") || (element == .plist && skip(" version=\"1.0\">")) else { return false }
                        state.parser.startElement(nil, element)
                        switch element {
                        case .plist, .dict, .array:
                            open[openCount] = element
                            openCount += 1
                        default:
                            guard let text = scalarText(), skip(XMLPlistFastScanner.endTag(element)) else { return false }
                            state.parser.endElement(nil, text: text)
                        }
                    }
                }
                if state.parser.failed { return false }
            }
            guard sawRoot, openCount == 0 else { return false }
            state.parser.finish()
            return !state.parser.failed
        }

        /// The text of a scalar element up to the next `<`: straight from the input, or from
        /// `decoded` when it has references. Nil for anything outside the subset.
        mutating func scalarText() -> UnsafeBufferPointer<UInt8>? {
            let start = position
            var runStart = position
            var hasReferences = false
            while position < end {
                let byte = position.pointee
                if byte >= 0x20 && byte < 0x80 {
                    if byte == UInt8(ascii: "<") { break }
                    if byte == UInt8(ascii: "&") {
                        if !hasReferences {
                            decoded.removeAll()
                            hasReferences = true
                        }
                        decoded.append(UnsafeBufferPointer(start: runStart, count: position - runStart))
                        guard reference() else { return nil }
                        runStart = position
                        continue
                    }
                    // `]]>` may not appear in text.
                    if byte == UInt8(ascii: "]"), end - position >= 3, position[1] == UInt8(ascii: "]"), position[2] == UInt8(ascii: ">") {
                        return nil
                    }
                    position += 1
                } else if byte == 0x09 || byte == 0x0A {
                    position += 1
                } else if byte >= 0x80 {
                    guard let length = XMLPlistFastScanner.characterLength(position, end) else { return nil }
                    position += length
                } else {
                    return nil  // a carriage return (which XML turns into a line feed) or a control character
                }
            }
            guard position < end else { return nil }
            guard hasReferences else { return UnsafeBufferPointer(start: start, count: position - start) }
            decoded.append(UnsafeBufferPointer(start: runStart, count: position - runStart))
            return decoded.bytes
        }

        /// Replaces the reference at `position` (a predefined entity or a character reference) in `decoded`.
        mutating func reference() -> Bool {
            if skip("&amp;") { decoded.append(UInt8(ascii: "&")); return true }
            if skip("&lt;") { decoded.append(UInt8(ascii: "<")); return true }
            if skip("&gt;") { decoded.append(UInt8(ascii: ">")); return true }
            if skip("&quot;") { decoded.append(UInt8(ascii: "\"")); return true }
            if skip("&apos;") { decoded.append(UInt8(ascii: "'")); return true }
            let radix: UInt32
            if skip("&#x") { radix = 16 } else if skip("&#") { radix = 10 } else { return false }
            var value: UInt32 = 0
            var digits = 0
            while position < end, digits <= 8 {
                let byte = UInt32(position.pointee)
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x61...0x66 where radix == 16: digit = byte - 0x61 + 10
                case 0x41...0x46 where radix == 16: digit = byte - 0x41 + 10
                default: digit = .max
                }
                if digit == .max { break }
                value = value * radix + digit
                digits += 1
                position += 1
            }
            guard digits > 0, digits <= 8, skip(";"), XMLPlistFastScanner.isXMLCharacter(value) else { return false }
            var utf8: [UInt8] = []
            Unicode.UTF8.encode(Unicode.Scalar(value)!) { utf8.append($0) }
            utf8.withUnsafeBufferPointer { decoded.append($0) }
            return true
        }
    }

    /// Whether the input at `start` begins with `literal` (compared in line: these are short).
    @inline(__always)
    static func matches(_ literal: StaticString, at start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - start >= count else { return false }
        let bytes = literal.utf8Start
        for index in 0..<count where start[index] != bytes[index] { return false }
        return true
    }

    /// The end tag of a scalar element.
    static func endTag(_ element: XMLPlistParseState.Element) -> StaticString {
        switch element {
        case .key: return "</key>"
        case .string: return "</string>"
        case .integer: return "</integer>"
        case .real: return "</real>"
        case .date: return "</date>"
        case .data: return "</data>"
        case .true: return "</true>"
        case .false: return "</false>"
        case .plist: return "</plist>"
        case .dict: return "</dict>"
        case .array: return "</array>"
        }
    }

    /// XML 1.0's `Char`: tab, line feed, carriage return, and U+0020 up, less surrogates, U+FFFE and U+FFFF.
    static func isXMLCharacter(_ value: UInt32) -> Bool {
        switch value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// The length of the well-formed UTF-8 sequence for an XML character (from U+0080) at
    /// `start`; nil for a malformed or overlong sequence, a surrogate, U+FFFE or U+FFFF.
    @inline(__always)
    static func characterLength(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int? {
        let lead = start.pointee
        @inline(__always) func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            end - start > offset && start[offset] >= low && start[offset] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : nil
        case 0xE0...0xEF:
            let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
            let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
            guard continuation(1, low, high), continuation(2) else { return nil }
            // U+FFFE and U+FFFF are not XML characters.
            if lead == 0xEF && start[1] == 0xBF && start[2] >= 0xBE { return nil }
            return 3
        case 0xF0...0xF4:
            let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
            let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
            return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : nil
        default:
            return nil
        }
    }
}
