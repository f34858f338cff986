import Foundation
import TestSupport
import Testing

@testable import Compression

/// zlib data made by Python's zlib module inflates here, and what is compressed here inflates there.
@Suite struct ZlibDataTests {
    static let text = Array(String(repeating: "<key>CFBundleVersion</key>\n\t<string>1.2.3</string>\n", count: 200).utf8)

    @Test func pythonsZlibDataInflatesToItsBytes() throws {
        let python = try #require(ProcessResult.which("python3"))
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let input = try folder.write("in.txt", Data(Self.text))
            let script = "import sys, zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1], 'rb').read(), 9))"
            let result = try ProcessResult.run(python, ["-c", script, input])
            #expect(result.status == 0, "\(result.stderrText)")
            let compressed = [UInt8](result.stdout)
            #expect(ZlibData.inflate(compressed, size: Self.text.count) == Self.text)
            // Exactly `size` bytes: one fewer or one more is not this data.
            #expect(ZlibData.inflate(compressed, size: Self.text.count - 1) == nil)
            #expect(ZlibData.inflate(compressed, size: Self.text.count + 1) == nil)
            // Bare deflate (the zlib header and Adler-32 cut off) only when asked for.
            let bare = Array(compressed[2..<(compressed.count - 4)])
            #expect(ZlibData.inflate(bare, size: Self.text.count) == nil)
            #expect(ZlibData.inflate(bare, size: Self.text.count, orRawDeflate: true) == Self.text)
        }
    }

    @Test func whatIsCompressedHereInflatesInPython() throws {
        let python = try #require(ProcessResult.which("python3"))
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let compressed = ZlibData.compress(Self.text, level: 9)
            #expect(compressed.count < Self.text.count / 10)
            let file = try folder.write("out.zlib", Data(compressed))
            let script = "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1], 'rb').read()))"
            let result = try ProcessResult.run(python, ["-c", script, file])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect([UInt8](result.stdout) == Self.text)
        }
    }
}
