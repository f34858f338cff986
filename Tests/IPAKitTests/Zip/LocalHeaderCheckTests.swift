import Foundation
import IPAKit
import SystemSupport
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
                throws: Diagnostic.ipa(
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
                throws: Diagnostic.ipa(
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
            #expect(throws: Diagnostic.ipa("overlaps the bytes of 'A.bin'", file: path, entry: "B.txt")) {
                try ZipArchiveReader(path: path)
            }
        }
    }

    /// A ZIP64 archive (an app over 4 GB or 65,535 entries) as Python's `zipfile` writes one, with its
    /// limits lowered so that every size, offset and the entry count go through ZIP64 fields.
    static func zip64Archive(at path: String) throws -> Data {
        let script = """
            import sys, zipfile
            zipfile.ZIP64_LIMIT = 0
            zipfile.ZIP_FILECOUNT_LIMIT = 0
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('Payload/A.app/Info.plist', b'<plist><dict><key>CFBundleExecutable</key><string>A</string></dict></plist>')
                z.writestr('Payload/A.app/A', b'x' * 1000)
            """
        let made = try ProcessResult.run("/usr/bin/env", ["python3", "-c", script, path])
        try #require(made.status == 0, "\(made.stderrText)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The checks hold in ZIP64 form too, where the sizes and offsets come from ZIP64 fields (they were
    /// skipped there, so a renamed local header passed in a ZIP64 archive).
    @Test func zip64ArchivesAreCheckedThroughTheirZIP64Fields() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let original = try Self.zip64Archive(at: folder.path("good.ipa"))
            #expect(
                try ZipArchiveReader(path: folder.path("good.ipa")).entries.map(\.name) == ["Payload/A.app/Info.plist", "Payload/A.app/A"])

            let renamed = try folder.write("renamed.ipa", try Self.patchedLocalName(original, "Payload/A.app/A", "Payload/../../B"))
            #expect(
                throws: Diagnostic.ipa("has a local header that names 'Payload/../../B' instead", file: renamed, entry: "Payload/A.app/A")
            ) { try ZipArchiveReader(path: renamed) }

            // The local ZIP64 field: id 1, length 16, the uncompressed then the compressed size.
            var bytes = [UInt8](original)
            let name = try #require(Self.localName("Payload/A.app/A", in: bytes))
            let field = name + "Payload/A.app/A".utf8.count
            try #require(bytes[field] == 1 && bytes[field + 1] == 0 && bytes[field + 2] == 16)
            let compressed = Int(bytes[field + 12]) | Int(bytes[field + 13]) << 8
            bytes[field + 12] &+= 1
            let lying = try folder.write("lying.ipa", Data(bytes))
            #expect(
                throws: Diagnostic.ipa(
                    "declares \(compressed + 1) compressed bytes in its local header and \(compressed) in the central directory",
                    file: lying, entry: "Payload/A.app/A")
            ) { try ZipArchiveReader(path: lying) }
        }
    }
}
