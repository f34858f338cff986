import AssetCatalog
import Foundation

/// Python's `lzfse` module as a test oracle for the LZFSE chunks of the real fixtures (this module
/// has no LZFSE decoder of its own): every chunk is decompressed in one Python run up front, and
/// the returned decompressor looks the results up.
enum LZFSEOracle {
    static let isAvailable: Bool = run(["-c", "import lzfse"], input: Data()) != nil

    /// A decompressor for exactly the LZFSE chunks of `catalog`, or nil when Python or its module is missing.
    static func decompressor(for catalog: AssetCatalog) -> RenditionDecompressor? {
        var chunks: [[UInt8]] = []
        for rendition in catalog.renditions where rendition.encoding == "lzfse" {
            chunks += catalog.compressedPayload(of: rendition)
        }
        var input = Data()
        for chunk in chunks {
            input += withUnsafeBytes(of: UInt32(chunk.count).littleEndian) { Data($0) } + Data(chunk)
        }
        let script = """
            import lzfse, struct, sys
            data = sys.stdin.buffer.read(); out = sys.stdout.buffer; offset = 0
            while offset < len(data):
                (length,) = struct.unpack_from('<I', data, offset); offset += 4
                result = lzfse.decompress(data[offset:offset + length]); offset += length
                out.write(struct.pack('<I', len(result)) + result)
            """
        guard let output = run(["-c", script], input: input) else { return nil }
        var results: [[UInt8]: [UInt8]] = [:]
        let bytes = [UInt8](output)
        var offset = 0
        for chunk in chunks {
            guard offset + 4 <= bytes.count else { return nil }
            let length = bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
            guard offset + 4 + length <= bytes.count else { return nil }
            results[chunk] = Array(bytes[(offset + 4)..<(offset + 4 + length)])
            offset += 4 + length
        }
        let table = results
        return { kind, bytes, _ in
            guard kind == .lzfse, let result = table[bytes] else { throw OracleMissing() }
            return result
        }
    }

    struct OracleMissing: Error {}

    static func run(_ arguments: [String], input: Data) -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? output : nil
    }
}
