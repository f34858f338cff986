import Foundation
import TestSupport
import Testing

@testable import Compression

/// Chunks deflate cannot shrink are written as stored blocks without deflating them; everything
/// else is deflated as before.
@Suite struct IncompressibleProbeTests {
    static func random(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func text(_ count: Int) -> [UInt8] {
        let words = ["<key>", "CFBundleVersion", "</key>", "<string>", "1.2.3", "</string>", "\n\t", "Shout", "Out"]
        var generator = SeededGenerator(seed: 7)
        var bytes: [UInt8] = []
        while bytes.count < count { bytes += Array(words[generator.below(words.count)].utf8) }
        return Array(bytes[0..<count])
    }

    static func incompressible(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { IncompressibleProbe.isIncompressible($0, fastest: Deflater(level: 1)) }
    }

    @Test func bitsPerByteIsTheEntropyOfTheByteValues() {
        let uniform = (0..<1024).map { UInt8(truncatingIfNeeded: $0) }
        #expect(uniform.withUnsafeBytes { IncompressibleProbe.bitsPerByte($0) } == 8)
        #expect([UInt8](repeating: 9, count: 100).withUnsafeBytes { IncompressibleProbe.bitsPerByte($0) } == 0)
        #expect([UInt8]([1, 2, 1, 2]).withUnsafeBytes { IncompressibleProbe.bitsPerByte($0) } == 1)
        #expect(Self.text(4096).withUnsafeBytes { IncompressibleProbe.bitsPerByte($0) } < 5)
        #expect(Self.random(4096, seed: 1).withUnsafeBytes { IncompressibleProbe.bitsPerByte($0) } > 7.9)
    }

    @Test(arguments: [1, 6, 9])
    func randomBytesAreWrittenAsStoredBlocksNoLargerThanDeflateMakesThem(level: Int) throws {
        for count in [1 << 20, 100_000, 5000] {
            let chunk = Self.random(count, seed: UInt64(count))
            #expect(Self.incompressible(chunk))
            let ours = try #require(chunk.withUnsafeBytes { ChunkDeflater(level: level).deflate($0) })
            // What binary data gets without the probe.
            let deflated = try #require(chunk.withUnsafeBytes { Deflater(level: level).deflate($0) })
            #expect(ours.count <= deflated.count, "\(count) bytes at level \(level)")
            #expect(ours.count <= count + 5 * (count / 65_535 + 1))  // only stored blocks' framing
            #expect(ours.withUnsafeBytes { Deflater.inflate($0, size: count) } == chunk)
        }
    }

    @Test func compressedDataIsIncompressible() throws {
        let gzipped = try #require(Self.text(3 << 20).withUnsafeBytes { Deflater(level: 9).deflate($0) })
        #expect(Self.incompressible(gzipped))
    }

    /// Random-looking bytes that repeat within deflate's reach are deflated, not stored.
    @Test(arguments: [100, 4096, 20_000, 32_000])
    func repeatedRandomStretchesAreDeflated(period: Int) throws {
        let stretch = Self.random(period, seed: UInt64(period))
        let chunk = Array((0..<((1 << 20) / period + 1)).map { _ in stretch }.joined().prefix(1 << 20))
        #expect(!Self.incompressible(chunk))
        let ours = try #require(chunk.withUnsafeBytes { ChunkDeflater(level: 6).deflate($0) })
        #expect(ours.count < chunk.count / 10)
    }

    @Test func textAndSmallChunksAreLeftToDeflate() {
        #expect(!Self.incompressible(Self.text(1 << 20)))
        #expect(!Self.incompressible(Self.random(1023, seed: 3)))
        // Random at the start but text after it: the windows in the middle and at the end see the text.
        #expect(!Self.incompressible(Self.random(70_000, seed: 4) + Self.text(1 << 20)))
    }

    /// The stated limit: only three windows are probed, so what lies between them is not looked at.
    @Test func onlyTheThreeWindowsOfALargeChunkAreProbed() {
        let count = 1 << 20
        let windows = IncompressibleProbe.windows(count: count)
        #expect(windows == [0..<65_536, 491_520..<557_056, 983_040..<1_048_576])
        var chunk = [UInt8](repeating: 0, count: count)
        let random = Self.random(count, seed: 5)
        for window in windows { chunk.replaceSubrange(window, with: random[window]) }
        #expect(Self.incompressible(chunk))
        #expect(IncompressibleProbe.windows(count: 2 * IncompressibleProbe.window) == [0..<(2 * IncompressibleProbe.window)])
    }
}
