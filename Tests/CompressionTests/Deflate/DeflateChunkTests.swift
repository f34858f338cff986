import Foundation
import TestSupport
import Testing

@testable import Compression

@Suite struct DeflateChunkTests {
    /// Text-like, machine-code-like and random data, so libdeflate emits every block type.
    static func sample(_ size: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state >> 33 }
        let words = ["shout", "out", "friends", "reaction", " ", "\n", "timeline", "profile"].map { Array($0.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        while out.count < size {
            switch next() % 3 {
            case 0: out += words[Int(next() % UInt64(words.count))]
            case 1: for _ in 0..<8 { out.append(UInt8(truncatingIfNeeded: next())) }
            default: out += [UInt8](repeating: UInt8(truncatingIfNeeded: next()), count: Int(next() % 40))
            }
        }
        return Array(out.prefix(size))
    }

    func joined(_ data: [UInt8], chunkSize: Int, level: Int) throws -> [UInt8] {
        let deflater = Deflater(level: level)
        var stream: [UInt8] = []
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunkSize, data.count)
            let chunk = try #require(data[offset..<end].withUnsafeBytes { deflater.deflate($0) } ?? nil)
            stream += end == data.count ? chunk : try DeflateChunk.makeContinuable(chunk)
            offset = end
        }
        return stream
    }

    @Test(arguments: [1, 6, 9, 12])
    func chunksCompressedApartInflateAsOneStream(level: Int) throws {
        for (size, chunk) in [(3_000_000, 1 << 20), (500_000, 65_536), (70_000, 7_001), (10, 3)] {
            let data = Self.sample(size, seed: UInt64(size + level))
            let stream = try joined(data, chunkSize: chunk, level: level)
            let inflated = stream.withUnsafeBytes { Deflater.inflate($0, size: data.count) }
            #expect(inflated == data, "size \(size), chunk \(chunk), level \(level)")
        }
    }

    @Test func zlibAgreesThatTheJoinedStreamIsValid() throws {
        let data = Self.sample(2_000_000, seed: 99)
        let stream = try joined(data, chunkSize: 300_000, level: 6)
        try withTemporaryFolder { folder in
            let compressed = try folder.write("stream.deflate", Data(stream))
            let original = try folder.write("original.bin", Data(data))
            let python = try #require(ProcessResult.which("python3"))
            let result = try ProcessResult.run(
                python,
                [
                    "-c",
                    """
                    import sys, zlib
                    d = zlib.decompressobj(-15)
                    out = d.decompress(open(sys.argv[1], 'rb').read()) + d.flush()
                    print(d.eof, out == open(sys.argv[2], 'rb').read())
                    """, compressed, original
                ])
            #expect(result.stdoutText == "True True\n", "\(result.stderrText)")
        }
    }

    @Test(arguments: [1, 6, 12])
    func aStreamCutShortIsRefused(level: Int) throws {
        let data = Self.sample(200_000, seed: 5)
        let stream = try #require(data.withUnsafeBytes { Deflater(level: level).deflate($0) })
        for kept in [1, 2, 100, stream.count / 2, stream.count - 1] {
            #expect(throws: DeflateBlockScanner.Failure.self, "\(kept) of \(stream.count) bytes") {
                try DeflateChunk.makeContinuable(Array(stream.prefix(kept)))
            }
        }
        #expect(try DeflateChunk.makeContinuable(stream).count >= stream.count)
    }

    @Test func aCorruptStreamIsRefused() {
        #expect(throws: DeflateBlockScanner.Failure.self) { try DeflateChunk.makeContinuable([0xFF, 0xFF, 0xFF]) }
        #expect(throws: DeflateBlockScanner.Failure.self) { try DeflateChunk.makeContinuable([]) }
    }
}

/// The block scanner's two-level Huffman tables: codes longer than the primary table's bits
/// (up to deflate's 15) are found through subtables, so streams whose codes are that long scan
/// to their exact end.
@Suite struct DeflateBlockScannerTests {
    /// Bytes whose frequencies follow the Fibonacci numbers, shuffled: a Huffman code for them has
    /// codes as long as deflate allows.
    static func skewed(seed: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        var (previous, current) = (1, 1)
        for symbol in 0..<26 {
            out += repeatElement(UInt8(symbol * 9), count: current)
            (previous, current) = (current, previous + current)
        }
        var generator = SeededGenerator(seed: seed)
        out.shuffle(using: &generator)
        return Array(out.prefix(300_000))
    }

    @Test(arguments: [1, 6, 12])
    func streamsWithLongCodesScanToTheirEnd(level: Int) throws {
        for (index, data) in [Self.skewed(seed: 1), Self.skewed(seed: 2), DeflateChunkTests.sample(400_000, seed: 3)].enumerated() {
            let stream = try #require(data.withUnsafeBytes { Deflater(level: level).deflate($0) })
            let (layout, longest) = try stream.withUnsafeBytes { raw in
                var scanner = DeflateBlockScanner(raw)
                return (try scanner.scan(), scanner.longestLiteralCode)
            }
            // The skewed bytes reach past the primary table's 10 bits, into the subtables.
            if index < 2 { #expect(longest > DeflateBlockScanner.primaryBitsAtMost, "level \(level)") }
            #expect((layout.endBit + 7) / 8 == stream.count)
            #expect(layout.finalBlockBit < layout.endBit)
            // Joined after a second chunk, the stream still inflates to both.
            let joined = try DeflateChunk.makeContinuable(stream) + stream
            #expect(joined.withUnsafeBytes { Deflater.inflate($0, size: data.count * 2) } == data + data)
        }
    }
}
