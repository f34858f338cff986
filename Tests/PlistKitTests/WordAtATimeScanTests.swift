import Foundation
import SystemSupport
import Testing

@testable import PlistKit

/// The XML writer's escaping and the binary reader's ASCII check look at eight bytes at a time;
/// these pin them to the byte-by-byte results at every position around a word's edges.
@Suite struct WordAtATimeScanTests {
    /// What the escaping must produce, one character at a time.
    static func escapedByHand(_ text: String) -> String {
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    func written(_ text: String) throws -> String {
        let xml = String(decoding: try XMLPlistWriter().write(.string(text)), as: UTF8.self)
        let start = try #require(xml.range(of: "<string>")).upperBound
        let end = try #require(xml.range(of: "</string>", options: .backwards)).lowerBound
        return String(xml[start..<end])
    }

    @Test func theWordTestFlagsExactlyControlsAmpersandAngleBracketsAndTheFFFELeadByte() {
        for byte in 0...255 {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(byte)
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                let flagged = byte < 0x20 || [0x26, 0x3C, 0x3E, 0xEF].contains(byte)
                #expect(XMLPlistEncoder.mayNeedEscaping(word) == flagged, "byte \(byte) at \(position)")
            }
        }
        let plain = Array("é東京🚀?@~".utf8.prefix(8))
        #expect(!XMLPlistEncoder.mayNeedEscaping(Array("com.ex/9".utf8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
        #expect(!XMLPlistEncoder.mayNeedEscaping(plain.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
    }

    @Test func everyEscapeLandsAtEveryOffsetOfTheWordsAroundIt() throws {
        for special in ["&", "<", ">", "\r", "\n", "\t", "&<", "\r\n", "é", "🚀"] {
            for length in 0..<26 {
                for position in 0...length {
                    var text = String(repeating: "x", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    #expect(try written(text) == Self.escapedByHand(text), "\(special.debugDescription) at \(position) of \(length)")
                }
            }
        }
        let mixed = "a&b<c>d\re&&&&&&&&<<<<<<<<>>>>>>>>\r\r\r\r\r\r\r\rzz東京 & 🚀 <tag attr=\"1\">"
        #expect(try written(mixed) == Self.escapedByHand(mixed))
    }

    @Test func refusalsAreFoundWhereverTheyFallAgainstWordEdges() throws {
        for (scalar, name) in [("\u{7}", "0007"), ("\u{0}", "0000"), ("\u{1F}", "001F"), ("\u{FFFE}", "FFFE"), ("\u{FFFF}", "FFFF")] {
            for position in 0..<20 {
                let text = String(repeating: "y", count: position) + scalar + String(repeating: "z", count: 19 - position)
                #expect(
                    throws: Diagnostic.plist(
                        .unrepresentable, "the string holds U+\(name), which XML cannot carry; write binary instead", keyPath: "")
                ) {
                    try XMLPlistWriter().write(.string(text))
                }
            }
        }
        // U+FFFD and U+EFBF share the lead byte but are fine.
        let near = String(repeating: "w", count: 6) + "\u{FFFD}\u{FFBF}\u{EFBF}" + String(repeating: "v", count: 9)
        #expect(try written(near) == near)
    }

    @Test func theFirstNonASCIIByteIsFoundAtEveryOffset() {
        for length in 0..<40 {
            let clean = [UInt8](repeating: 0x7F, count: length)
            clean.withUnsafeBytes { #expect(BinaryPlistObjectTable.firstNonASCII(in: $0, 0..<length) == nil) }
            for position in 0..<length {
                for bad: UInt8 in [0x80, 0xE9, 0xFF] {
                    var bytes = clean
                    bytes[position] = bad
                    if position + 3 < length { bytes[position + 3] = 0x80 }
                    bytes.withUnsafeBytes { raw in
                        #expect(BinaryPlistObjectTable.firstNonASCII(in: raw, 0..<length) == position)
                        #expect(BinaryPlistObjectTable.firstNonASCII(in: raw, position..<length) == position)
                        let after = position + 1
                        let expected = position + 3 < length ? position + 3 : nil
                        #expect(BinaryPlistObjectTable.firstNonASCII(in: raw, after..<length) == expected)
                    }
                }
            }
        }
    }

    @Test func aBinaryStringWithALateNonASCIIByteNamesThatByte() throws {
        var builder = BinaryPlistBuilder()
        builder.add([0x5D] + Array("abcdefghijkl".utf8) + [0xC3])
        #expect(
            throws: Diagnostic.plist(.malformed, "object 0 is an ASCII string holding byte 0xC3", at: .byte(8 + 1 + 12))
        ) {
            try BinaryPlistReader().read(builder.build())
        }
    }
}
