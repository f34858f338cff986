import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// A large entry written as 1 MiB pieces joined into one deflate stream (as `adhocbuild package`
/// and Python's zlib with full flushes write it) is inflated a piece at a time: the same bytes as
/// libzip's streaming read, and where the stream is not of joined pieces or is damaged, the same
/// bytes or the same error as that read, which takes over.
@Suite struct JoinedChunkReaderTests {
    /// 4 MiB: a text-like MiB, a random one (stored blocks), the text reversed, and half of each.
    static let script = """
        import random, zlib
        r = random.Random(7)
        text = b''.join(b'line %d of some text\\n' % i for i in range(60000))[:1 << 20]
        noise = r.randbytes(1 << 20)
        data = text + noise + text[::-1] + noise[:1 << 19] + text[:1 << 19]
        def joined(flush):
            c = zlib.compressobj(6, zlib.DEFLATED, -15); out = b''
            for at in range(0, len(data), 1 << 20):
                out += c.compress(data[at:at + (1 << 20)])
                out += c.flush(flush if at + (1 << 20) < len(data) else zlib.Z_FINISH)
            return out
        def entry(name, stream, crc, size):
            return name.encode(), stream, crc, size
        entries = [entry('Payload/A.app/joined.bin', joined(zlib.Z_FULL_FLUSH), zlib.crc32(data), len(data)),
                   entry('Payload/A.app/sync.bin', joined(zlib.Z_SYNC_FLUSH), zlib.crc32(data), len(data)),
                   entry('Payload/A.app/single.bin', zlib.compress(data, 6)[2:-4], zlib.crc32(data), len(data))]
        def flip(at):
            stream = bytearray(entries[0][1]); stream[at] ^= 0x55; entries[0] = (entries[0][0], bytes(stream)) + entries[0][2:]
        def declare(change):
            entries[0] = entries[0][:3] + (entries[0][3] + change,)
        """

    /// Writes the entries of `script` (then `change`, Python over `entries`) by hand as a zip.
    func makeZip(_ folder: TemporaryFolder, _ name: String, change: String = "") throws -> String {
        let path = folder.path(name)
        let python = try #require(ProcessResult.which("python3"))
        let writer = """
            import struct, sys
            \(Self.script)
            \(change)
            out, central = b'', b''
            for name, stream, crc, size in entries:
                head = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0x21, crc, len(stream), size, len(name), 0)
                central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 8, 0, 0x21, crc, len(stream), size,
                                       len(name), 0, 0, 0, 0, 0, len(out)) + name
                out += head + name + stream
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, len(entries), len(entries), len(central), len(out), 0)
            open(sys.argv[1], 'wb').write(out + central + end)
            """
        let result = try ProcessResult.run(python, ["-c", writer, path])
        try #require(result.status == 0, "python: \(result.stderrText)")
        return path
    }

    /// The entry read in pieces through a buffer of `chunkSize` (1 MiB tries the joined pieces,
    /// less reads through libzip alone).
    func read(_ reader: ZipArchiveReader, _ name: String, chunkSize: Int) -> Result<[UInt8], any Error> {
        Result {
            var bytes: [UInt8] = []
            try reader.readChunks(try #require(reader.entry(named: name)), chunkSize: chunkSize) { bytes += $0 }
            return bytes
        }
    }

    @Test func joinedPiecesAreInflatedOneByOneAndOtherStreamsFallBack() throws {
        try withTemporaryFolder { folder in
            let reader = try ZipArchiveReader(path: try makeZip(folder, "ok.ipa"))
            let expected = try read(reader, "Payload/A.app/single.bin", chunkSize: 1 << 19).get()
            #expect(expected.count == 4 << 20)
            // After a sync flush a piece may refer to the one before; whether it does or not, the bytes are the same.
            for (name, isJoined) in [("joined.bin", true), ("sync.bin", nil), ("single.bin", false)] {
                let entry = try #require(reader.entry(named: "Payload/A.app/" + name))
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate() }
                let joined = try reader.readJoinedChunks(entry, into: buffer) { _ in }
                if let isJoined {
                    #expect(joined.isComplete == isJoined, "\(name)")
                    #expect(joined.handed == (isJoined ? entry.size : 0), "\(name)")
                }
                #expect(try read(reader, "Payload/A.app/" + name, chunkSize: 1 << 20).get() == expected, "\(name)")
            }
        }
    }

    /// Damage in the first piece, in stored bytes, in the last piece, a CRC that does not match, or
    /// a declared size off by some bytes: the reader hands on what it inflated and libzip reports
    /// the rest as it always did.
    @Test(arguments: [
        ("first", "flip(1000)"), ("stored", "flip(len(entries[0][1]) // 3)"), ("last", "flip(-1000)"),
        ("crc", "entries[0] = entries[0][:2] + (entries[0][2] ^ 1, entries[0][3])"), ("short", "declare(10)"),
        ("long", "declare(-10)"), ("cut", "declare(-(1 << 20) - 5)")
    ])
    func damageIsReportedAsLibzipReportsIt(name: String, change: String) throws {
        try withTemporaryFolder { folder in
            let path = try makeZip(folder, name + ".ipa", change: change)
            let reader = try ZipArchiveReader(path: path)
            let streamed = read(reader, "Payload/A.app/joined.bin", chunkSize: 1 << 19)
            let pieced = read(reader, "Payload/A.app/joined.bin", chunkSize: 1 << 20)
            guard case .failure(let expected as Diagnostic) = streamed, case .failure(let error as Diagnostic) = pieced else {
                Issue.record("\(name): \(streamed) and \(pieced) are not both errors")
                return
            }
            #expect(error == expected, "\(name)")
        }
    }
}
