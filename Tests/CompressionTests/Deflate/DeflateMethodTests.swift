import Foundation
import TestSupport
import Testing

@testable import Compression

@Suite struct DeflateMethodTests {
    static func looksLikeText(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { DeflateMethod.looksLikeText($0) } }

    @Test func textAndUTF8AreTextMachineCodeAndRandomBytesAreNot() {
        #expect(Self.looksLikeText(Array("\"greeting\" = \"Grüß dich, 日本\";\r\n\t<key>a</key>\u{0C}".utf8)))
        var random = AppLikeContent.Generator(state: 7)
        #expect(!Self.looksLikeText(AppLikeContent.machineCode(size: 100_000, &random)))
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

    /// The library takes libdeflate's levels 10-12 too; zlib has no such levels, so small text
    /// must not go to it there.
    @Test(arguments: [1, 4, 6, 9, 10, 12])
    func smallTextDeflatesAtEveryLevelTheLibraryTakes(level: Int) throws {
        var random = AppLikeContent.Generator(state: 3)
        let text = Array(AppLikeContent.smallText(0, size: 1500, &random).utf8)
        let stream = try #require(text.withUnsafeBytes { ChunkDeflater(level: level).deflate($0) })
        #expect(stream.withUnsafeBytes { Deflater.inflate($0, size: text.count) } == text)
    }

    /// The detection reads eight bytes at a time; byte by byte, per 4 KiB stretch, must agree.
    @Test func eightBytesAtATimeAgreesWithCountingByteByByte() {
        func counted(_ bytes: [UInt8]) -> Bool {
            guard !bytes.isEmpty else { return false }
            let banned = Set<UInt8>(Array(0...6) + Array(14...25) + Array(28...31))
            return stride(from: 0, to: bytes.count, by: 4096).allSatisfy { start in
                let stretch = bytes[start..<min(start + 4096, bytes.count)]
                return stretch.filter { banned.contains($0) }.count * 128 <= stretch.count
            }
        }
        var random = AppLikeContent.Generator(state: 11)
        for round in 0..<300 {
            let size = [1, 7, 8, 9, 100, 4095, 4096, 4097, 9000][round % 9] + random.below(3)
            let density = [0, 64, 100, 128, 140, 200, 1000][random.below(7)]  // control bytes per 16,384
            let bytes: [UInt8] = (0..<size).map { _ in
                random.below(16_384) < density ? UInt8(random.below(32)) : UInt8(32 + random.below(224))
            }
            let fast = bytes.withUnsafeBytes { DeflateMethod.looksLikeText($0) }
            #expect(fast == counted(bytes), "round \(round): \(size) bytes")
        }
    }
}
