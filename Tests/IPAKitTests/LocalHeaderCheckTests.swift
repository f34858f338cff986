import Foundation
import IPAKit
import TestSupport
import Testing

/// Issue 31: an entry's local header is what unzip tools and iOS read, so it must agree with the
/// central directory this reader lists: a local header that renames `Info.plist` to
/// `Payload/Test.app/../../evil`, one that lies about its size, and entries whose bytes overlap
/// each passed as a valid ipa.
@Suite struct LocalHeaderCheckTests {
    /// Where the local header's copy of `name` starts: the first occurrence 30 bytes after a local
    /// header signature (not the central directory's copy).
    static func localName(_ name: String, in bytes: [UInt8]) -> Int? {
        let name = Array(name.utf8)
        let signature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        for index in 30..<(bytes.count - name.count) where bytes[index - 30..<index - 26].elementsEqual(signature) {
            if bytes[index..<index + name.count].elementsEqual(name) { return index }
        }
        return nil
    }

    /// The fixture ipa's bytes with the local header's name `original` replaced by `replacement`.
    static func patchedLocalName(_ data: Data, _ original: String, _ replacement: String) throws -> Data {
        var bytes = [UInt8](data)
        let at = try #require(localName(original, in: bytes))
        bytes.replaceSubrange(at..<at + original.utf8.count, with: Array(replacement.utf8))
        return Data(bytes)
    }

    @Test(Fixtures.enabled) func aLocalHeaderThatNamesAnotherPathIsRefused() throws {
        let original = try Data(contentsOf: Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa"))
        try withTemporaryFolder { folder in
            let evil = try folder.write(
                "evil.ipa", try Self.patchedLocalName(original, "Payload/Test.app/Info.plist", "Payload/Test.app/../../evil"))
            #expect(
                throws: IPAError(
                    "has a local header that names 'Payload/Test.app/../../evil' instead", file: evil, entry: "Payload/Test.app/Info.plist")
            ) { try ZipArchiveReader(path: evil) }
            // The untouched ipa reads.
            let good = try folder.write("good.ipa", original)
            #expect(try ZipArchiveReader(path: good).entries.count > 10)
        }
    }

    @Test func aLocalHeaderThatLiesAboutItsSizeIsRefused() throws {
        // No data descriptor, so the local header's sizes are the entry's: 6 declared, 5 stored.
        let script = """
            import struct, sys, zlib
            data = b'hello'
            name = b'A.txt'
            local = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0, zlib.crc32(data), len(data) + 1, len(data) + 1,
                                len(name), 0) + name + data
            central = struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0, zlib.crc32(data), len(data), len(data),
                                  len(name), 0, 0, 0, 0, 0, 0) + name
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 1, 1, len(central), len(local), 0)
            open(sys.argv[1], 'wb').write(local + central + end)
            """
        try withTemporaryFolder { folder in
            let path = folder.path("lying.zip")
            let made = try ProcessResult.run("/usr/bin/env", ["python3", "-c", script, path])
            try #require(made.status == 0, "\(made.stderrText)")
            #expect(
                throws: IPAError(
                    "declares 6 compressed bytes in its local header and 5 in the central directory", file: path, entry: "A.txt")
            ) { try ZipArchiveReader(path: path) }
        }
    }

    @Test func entriesWhoseBytesOverlapAreRefused() throws {
        // Entry A is stored, and its data is a whole local header and data of entry B, which the
        // central directory lists at that inner offset: two names for overlapping bytes.
        let script = """
            import struct, sys, zlib
            def local(name, data):
                return struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0, zlib.crc32(data), len(data), len(data), len(name), 0) + name + data
            def central(name, data, offset):
                return struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0, zlib.crc32(data), len(data), len(data),
                                   len(name), 0, 0, 0, 0, 0, offset) + name
            inner = local(b'B.txt', b'hello')
            outer = local(b'A.bin', inner)
            directory = central(b'A.bin', inner, 0) + central(b'B.txt', b'hello', 30 + 5)
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 2, 2, len(directory), len(outer), 0)
            open(sys.argv[1], 'wb').write(outer + directory + end)
            """
        try withTemporaryFolder { folder in
            let path = folder.path("overlap.zip")
            let made = try ProcessResult.run("/usr/bin/env", ["python3", "-c", script, path])
            try #require(made.status == 0, "\(made.stderrText)")
            #expect(throws: IPAError("overlaps the bytes of 'A.bin'", file: path, entry: "B.txt")) { try ZipArchiveReader(path: path) }
        }
    }
}
