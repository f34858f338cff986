import Foundation
import Testing

@testable import PlistKit

/// `<data>` text to bytes: whole groups at once where the text allows, one character at a time
/// elsewhere, the same bytes and the same errors either way.
@Suite struct Base64Tests {
    /// `text` decoded, or the failure's offset and byte.
    static func decoded(_ text: [UInt8]) -> Result<[UInt8], Base64.DecodeFailure> {
        text.withUnsafeBufferPointer { text in
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Base64.decodedCapacity(text.count))
            defer { buffer.deallocate() }
            return Base64.decode(text, into: buffer).map { Array(UnsafeBufferPointer(start: buffer, count: $0)) }
        }
    }

    @Test func bytesInAnyLayoutOfWhiteSpaceDecodeAsFoundationDecodesThem() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                var text: [UInt8] = []
                for character in Data(bytes).base64EncodedData() {
                    while Int.random(in: 0..<4, using: &generator) == 0 { text.append([0x20, 0x09, 0x0A, 0x0D].randomElement()!) }
                    text.append(character)
                }
                let expected = Data(base64Encoded: Data(text), options: .ignoreUnknownCharacters).map { [UInt8]($0) }
                #expect(expected == bytes)
                guard case .success(let got) = Self.decoded(text) else {
                    Issue.record("\(String(decoding: text, as: UTF8.self).debugDescription) was refused")
                    continue
                }
                #expect(got == bytes, "\(String(decoding: text, as: UTF8.self).debugDescription)")
            }
        }
    }

    @Test func aCharacterOutsideTheAlphabetIsNamedAtItsOffsetWhereverItFalls() {
        let valid = Array("QUJDREVGR0hJSktMTU5PUA==".utf8)
        for position in 0..<valid.count - 2 {
            for bad in [UInt8(ascii: "*"), UInt8(ascii: "-"), 0x00, 0xC3] {
                var text = valid
                text[position] = bad
                guard case .failure(let failure) = Self.decoded(text) else {
                    Issue.record("\(position): accepted")
                    continue
                }
                #expect(failure.offset == position && failure.byte == bad)
            }
        }
    }

    @Test func paddingOnlyEndsTheText() {
        guard case .failure(let inside) = Self.decoded(Array("QUI=QUJD".utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(inside.offset == 4)
        guard case .failure(let early) = Self.decoded(Array("Q===".utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(early.offset == 1)
        guard case .failure(let unpadded) = Self.decoded(Array("QUJDQUI".utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(unpadded.isUnpadded && unpadded.offset == 7)
        guard case .success(let bytes) = Self.decoded(Array(" QU\nJD\tQUI= ".utf8)) else {
            Issue.record("refused")
            return
        }
        #expect(bytes == Array("ABCAB".utf8))
    }
}
