import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// Entries read in pieces through one reused buffer: the same bytes as a whole read, and every
/// damage a whole read catches (CRC, size) caught too, naming the entry.
@Suite struct ZipEntryChunksTests {
    func makeZip(_ folder: TemporaryFolder, _ name: String, _ script: String) throws -> String {
        let path = folder.path(name)
        let python = try #require(ProcessResult.which("python3"))
        let result = try ProcessResult.run(python, ["-c", "import sys, zipfile, struct\nout = sys.argv[1]\n" + script, path])
        try #require(result.status == 0, "python: \(result.stderrText)")
        return path
    }

    func chunks(_ reader: ZipArchiveReader, _ name: String, chunkSize: Int) throws -> (bytes: [UInt8], pieces: [Int]) {
        let entry = try #require(reader.entry(named: name))
        var bytes: [UInt8] = []
        var pieces: [Int] = []
        try reader.readChunks(entry, chunkSize: chunkSize) { piece in
            bytes += piece
            pieces.append(piece.count)
        }
        return (bytes, pieces)
    }

    @Test func piecesJoinToTheWholeEntryAndNeverExceedTheBuffer() throws {
        try withTemporaryFolder { folder in
            let path = try makeZip(
                folder, "ok.ipa",
                """
                z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED)
                z.writestr('Payload/A.app/big.bin', bytes(range(256)) * 4099)
                z.writestr('Payload/A.app/stored.bin', b'xyz' * 1000, compress_type=zipfile.ZIP_STORED)
                z.writestr('Payload/A.app/empty', b'')
                z.close()
                """)
            let reader = try ZipArchiveReader(path: path)
            for name in ["Payload/A.app/big.bin", "Payload/A.app/stored.bin", "Payload/A.app/empty"] {
                let (bytes, pieces) = try chunks(reader, name, chunkSize: 4096)
                #expect(bytes == [UInt8](try reader.data(named: name)), "\(name)")
                #expect(pieces.allSatisfy { $0 > 0 && $0 <= 4096 }, "\(name)")
            }
            #expect(try chunks(reader, "Payload/A.app/big.bin", chunkSize: 4096).pieces.count >= 256)
            #expect(reader.largestChunkBuffer == 4096)
            // A small entry gets a buffer of its own size, not the chunk size.
            let small = try ZipArchiveReader(path: path)
            _ = try chunks(small, "Payload/A.app/stored.bin", chunkSize: 1 << 20)
            #expect(small.largestChunkBuffer == 3000)
            #expect(small.chunkedReads == 1)
        }
    }

    @Test func aCorruptedEntryFailsItsCRCNamingIt() throws {
        try withTemporaryFolder { folder in
            let path = try makeZip(
                folder, "crc.ipa",
                """
                z = zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED); z.writestr('Payload/A.app/data.bin', 'A' * 100000); z.close()
                data = bytearray(open(out, 'rb').read()); at = data.find(b'AAAA') + 70000; data[at] = ord('B'); open(out, 'wb').write(data)
                """)
            let reader = try ZipArchiveReader(path: path)
            #expect(throws: Diagnostic.ipa("is damaged: CRC error", file: path, entry: "Payload/A.app/data.bin")) {
                _ = try chunks(reader, "Payload/A.app/data.bin", chunkSize: 8192)
            }
        }
    }

    @Test func aTruncatedOrOverlongEntryIsAnErrorNamingIt() throws {
        try withTemporaryFolder { folder in
            // The directories declare 10 bytes more (truncated data) or 10 bytes fewer (overlong) than the entry holds.
            for (name, delta) in [("short.ipa", 10), ("long.ipa", -10)] {
                let path = try makeZip(
                    folder, name,
                    """
                    z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED); z.writestr('Payload/A.app/data.bin', b'0123456789' * 5000); z.close()
                    data = bytearray(open(out, 'rb').read())
                    for sig, at in ((b'PK\\x03\\x04', 22), (b'PK\\x01\\x02', 24)):
                        h = data.find(sig); data[h + at:h + at + 4] = struct.pack('<I', 50000 + (\(delta)))
                    open(out, 'wb').write(data)
                    """)
                let reader = try ZipArchiveReader(path: path)
                do {
                    _ = try chunks(reader, "Payload/A.app/data.bin", chunkSize: 4096)
                    Issue.record("\(name): no error")
                } catch let error as Diagnostic where error.is(IPAProblem.self) {
                    #expect(error.entry == "Payload/A.app/data.bin", "\(name): \(error)")
                    #expect(error.file == path)
                    #expect(!error.description.contains("\n"))
                }
            }
        }
    }

    /// A deflated entry that fits in the buffer is inflated in one call (libdeflate): the same bytes
    /// as libzip's streaming read, in one piece, and the same damage caught, naming the entry.
    @Test func aSmallDeflatedEntryIsInflatedWholeAndItsDamageCaught() throws {
        try withTemporaryFolder { folder in
            // ok: intact. crc: both headers' CRC changed. bad: the stream's first block type made invalid.
            // short and long: the declared size 10 bytes above or below what the stream holds.
            let cases: [(String, String, String?)] = [
                ("ok", "pass", nil),
                ("crc", "patch(14, 16, struct.pack('<I', crc ^ 1))", "is damaged: CRC error"),
                ("bad", "data[body] = 0x07", "is damaged: invalid deflate data"),
                ("short", "patch(22, 24, struct.pack('<I', 50010))", "holds 50000 bytes but declares 50010 (truncated?)"),
                ("long", "patch(22, 24, struct.pack('<I', 49990))", "holds more data than the 49990 bytes it declares")
            ]
            for (name, change, expected) in cases {
                let path = try makeZip(
                    folder, name + ".ipa",
                    """
                    z = zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED); z.writestr('Payload/A.app/data.bin', b'0123456789' * 5000); z.close()
                    data = bytearray(open(out, 'rb').read())
                    local = data.find(b'PK\\x03\\x04'); central = data.find(b'PK\\x01\\x02')
                    crc = struct.unpack('<I', data[local + 14:local + 18])[0]
                    body = local + 30 + struct.unpack('<H', data[local + 26:local + 28])[0] + struct.unpack('<H', data[local + 28:local + 30])[0]
                    def patch(at_local, at_central, value):
                        data[local + at_local:local + at_local + len(value)] = value
                        data[central + at_central:central + at_central + len(value)] = value
                    \(change)
                    open(out, 'wb').write(data)
                    """)
                let reader = try ZipArchiveReader(path: path)
                let entry = try #require(reader.entry(named: "Payload/A.app/data.bin"))
                #expect(ZipArchiveReader.inflatesWhole(entry, into: 1 << 20))
                do {
                    let (bytes, pieces) = try chunks(reader, "Payload/A.app/data.bin", chunkSize: 1 << 20)
                    #expect(expected == nil, "\(name): no error")
                    #expect(bytes == Array(Data(String(repeating: "0123456789", count: 5000).utf8)))
                    #expect(pieces == [50000])
                } catch let error as Diagnostic where error.is(IPAProblem.self) {
                    #expect(error == Diagnostic.ipa(expected ?? "-", file: path, entry: "Payload/A.app/data.bin"), "\(name)")
                }
            }
        }
    }
}
