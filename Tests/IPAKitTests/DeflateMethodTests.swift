import Foundation
@testable import IPAKit
import Testing

@Suite struct DeflateMethodTests {
    static func looksLikeText(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { DeflateMethod.looksLikeText($0) } }

    @Test func textAndUTF8AreTextMachineCodeAndRandomBytesAreNot() {
        #expect(Self.looksLikeText(Array("\"greeting\" = \"Grüß dich, 日本\";\r\n\t<key>a</key>\u{0C}".utf8)))
        var random = PackageSizeTests.Generator(state: 7)
        #expect(!Self.looksLikeText(PackageSizeTests.machineCode(size: 100_000, &random)))
        #expect(!Self.looksLikeText(random.bytes(100_000)))
        #expect(!Self.looksLikeText([]))
    }

    @Test func textWithAtMostOneControlByteIn128PerStretchIsText() {
        // 10,400 bytes with escapes, which text may hold.
        var text = Array(String(repeating: "\u{1B}[1mtimeline\u{1B}[0m settings\n", count: 400).utf8)
        for index in stride(from: 0, to: 80 * 128, by: 128) { text[index] = 0 }  // 1 in 128 throughout
        let isText = Self.looksLikeText(text)
        #expect(isText)
        for index in stride(from: 64, to: 10 * 128, by: 128) { text[index] = 0x01 }  // 10 more in the first 4 KiB
        let stillText = Self.looksLikeText(text)
        #expect(!stillText)
    }
}
