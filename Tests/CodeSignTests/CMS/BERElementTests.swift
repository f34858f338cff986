import Foundation
import TestSupport
import Testing

@testable import CodeSign

/// The BER walk that finds the stored signed attributes, on hand-made headers and on cut and
/// corrupted fixture CMS: it measures what is there, refuses what runs past the bytes or nests too
/// deeply, and never traps.
@Suite struct BERElementTests {
    func read(_ bytes: [UInt8]) -> BERElement? {
        bytes.withUnsafeBufferPointer { BERElement.read($0, at: 0, limit: $0.count) }
    }

    @Test func definiteAndIndefiniteLengthsAreMeasured() throws {
        let definite = try #require(read([0x30, 0x03, 0x02, 0x01, 0x05, 0xEE]))
        #expect(definite.isUniversal(16) && !definite.isIndefinite)
        #expect(definite.contentStart == 2 && definite.contentEnd == 5 && definite.end == 5)
        // SEQUENCE (indefinite) { INTEGER 5, [0] (indefinite) { } } followed by a stray byte.
        let bytes: [UInt8] = [0x30, 0x80, 0x02, 0x01, 0x05, 0xA0, 0x80, 0x00, 0x00, 0x00, 0x00, 0xEE]
        let indefinite = try #require(read(bytes))
        #expect(indefinite.isIndefinite && indefinite.contentEnd == 9 && indefinite.end == 11)
        let children = try #require(bytes.withUnsafeBufferPointer { indefinite.children($0) })
        #expect(children.map(\.tag) == [2, 0])
        #expect(children[1].isContext(0) && children[1].isIndefinite && children[1].end == 9)
    }

    @Test func lengthsPastTheBytesAndMalformedHeadersAreRefused() {
        #expect(read([0x30, 0x04, 0x02, 0x01, 0x05]) == nil)  // one byte short
        #expect(read([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x00]) == nil)  // 2 GiB claimed
        #expect(read([0x30, 0x89, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]) == nil)  // 9 length bytes
        #expect(read([0x30]) == nil)
        #expect(read([]) == nil)
        #expect(read([0x30, 0x80, 0x02, 0x01, 0x05]) == nil)  // no end-of-contents
        #expect(read([0x02, 0x80, 0x00, 0x00]) == nil)  // a primitive cannot be indefinite
    }

    @Test func indefiniteNestingIsLimited() {
        func nested(_ levels: Int) -> [UInt8] {
            Array([[UInt8]](repeating: [0x30, 0x80], count: levels).joined()) + [UInt8](repeating: 0x00, count: 2 * levels)
        }
        // The innermost end-of-contents marker sits one level below the innermost element.
        #expect(read(nested(BERElement.maximumDepth))?.end == 4 * BERElement.maximumDepth)
        #expect(read(nested(BERElement.maximumDepth + 1)) == nil)
        #expect(read(nested(10_000)) == nil)
        #expect(StoredSignedAttributes.find(in: nested(10_000)) == .malformed("CMS is not a ContentInfo with explicit content"))
    }

    @Test(Fixtures.enabled) func cutAndCorruptedFixtureCMSNeverTrapsAndFailsInOneLine() throws {
        let item = try #require(try TrustCase.all().first { $0.ipa == StoredSignedAttributesTests.unsorted })
        let der = try #require(item.signature.signature).cms
        let content = try #require(item.signature.blob(SignatureSlot.codeDirectory))
        guard case .attributes = StoredSignedAttributes.find(in: der) else {
            Issue.record("the fixture's attributes are not found")
            return
        }
        // The fixture's outer layers are indefinite-length, so every cut loses an end-of-contents marker.
        for keep in stride(from: 0, to: der.count, by: 5) {
            guard case .malformed = StoredSignedAttributes.find(in: Array(der.prefix(keep))) else {
                Issue.record("a CMS cut to \(keep) bytes was read")
                continue
            }
        }
        for offset in stride(from: 0, to: der.count, by: 3) {
            for value: UInt8 in [0x00, 0x80, 0xFF] where der[offset] != value {
                var corrupted = der
                corrupted[offset] = value
                _ = StoredSignedAttributes.find(in: corrupted)
                guard let cms = try? CodeSignatureCMS(cms: corrupted, content: content) else { continue }
                #expect(cms.verificationFailure?.contains("\n") != true, "byte \(offset) = \(value)")
            }
        }
    }
}
