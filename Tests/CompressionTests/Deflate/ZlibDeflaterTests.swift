import Foundation
import TestSupport
import Testing

@testable import Compression

/// The small window chosen for small text changes no byte: up to its reach, the output is what
/// zlib makes with its default 32 KiB window, as Python's zlib module makes it.
@Suite struct ZlibDeflaterTests {
    @Test func theWindowIsTheSmallestThatReachesOverTheInput() {
        #expect(ZlibDeflater.windowBits(reaching: 0) == 9)
        #expect(ZlibDeflater.windowBits(reaching: 250) == 9)
        #expect(ZlibDeflater.windowBits(reaching: 251) == 10)
        #expect(ZlibDeflater.windowBits(reaching: 2048) == 12)
        #expect(ZlibDeflater.windowBits(reaching: 3834) == 12)
        #expect(ZlibDeflater.windowBits(reaching: 3835) == 13)
        #expect(ZlibDeflater.windowBits(reaching: 1 << 20) == 15)
    }

    @Test(arguments: [1, 6, 9])
    func smallTextComesOutAsWithZlibsDefaultWindow(level: Int) throws {
        let python = try #require(ProcessResult.which("python3"))
        try withTemporaryFolder { folder in
            var generator = SeededGenerator(seed: UInt64(level))
            let words = ["key", "value", "\"CFBundle\"", " = ", ";\n", "<string>", "</string>", "\t", "Localizable", "é"]
            var inputs: [[UInt8]] = []
            for size in stride(from: 1, to: DeflateMethod.smallTextLimit, by: 41) {
                var text: [UInt8] = []
                while text.count < size { text += Array(words[Int(generator.next() % UInt64(words.count))].utf8) }
                inputs.append(Array(text.prefix(size)))
            }
            var ours: [String] = []
            let deflater = ZlibDeflater(level: level, largestInput: DeflateMethod.smallTextLimit)
            for (index, input) in inputs.enumerated() {
                _ = try folder.write("\(index).txt", Data(input))
                ours.append(input.withUnsafeBytes { deflater.deflate($0) }.map { String(format: "%02x", $0) }.joined())
            }
            let script = """
                import sys, zlib
                for index in range(int(sys.argv[2])):
                    data = open(f"{sys.argv[1]}/{index}.txt", "rb").read()
                    compressor = zlib.compressobj(int(sys.argv[3]), zlib.DEFLATED, -15, 8)
                    print((compressor.compress(data) + compressor.flush()).hex())
                """
            let result = try ProcessResult.run(python, ["-c", script, folder.url.path, String(inputs.count), String(level)])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.split(separator: "\n").map(String.init) == ours)
            #expect(ours.count == inputs.count)
        }
    }
}
