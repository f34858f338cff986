import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// An ipa unpacked and packed again: what did not change goes in as the same compressed bytes.
@Suite struct CarriedEntriesTests {
    static func entry(_ name: String) -> BundleTree.Entry {
        BundleTree.Entry(archivePath: name, sourcePath: "/x/" + name, kind: .file, size: 0, permissions: 0o644, modificationTime: 0)
    }

    @Test func entriesKeepTheArchivesOrderAndANewOneFollowsTheEntryBeforeIt() {
        let tree = [
            "Payload/", "Payload/A.app/", "Payload/A.app/A", "Payload/A.app/Info.plist", "Payload/A.app/environment.plist",
            "Payload/A.app/z.png"
        ]
        let order = ["Payload/A.app/z.png", "Payload/A.app/Info.plist", "Payload/", "Payload/A.app/", "Payload/A.app/A"]
        let ordered = IPAPackager.ordered(tree.map(Self.entry), like: order).map(\.archivePath)
        #expect(
            ordered == [
                "Payload/A.app/z.png", "Payload/A.app/Info.plist", "Payload/A.app/environment.plist", "Payload/", "Payload/A.app/",
                "Payload/A.app/A"
            ])
    }

    /// The stored (compressed) bytes of every entry, by name, read through the local headers.
    static func storedBytes(_ archive: String) throws -> [String: Data] {
        let reader = try ZipArchiveReader(path: archive)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        var result: [String: Data] = [:]
        for entry in reader.entries where !entry.isDirectory {
            let start = Int(try #require(reader.dataOffset(of: entry)))
            result[entry.name] = bytes.subdata(in: start..<start + Int(entry.compressedSize))
        }
        return result
    }

    @Test func unchangedFilesAreCarriedAndChangedOrRewrittenOnesAreCompressedAgain() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let app = folder.path("in/Payload/A.app")
            try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
            let text = (0..<2000).map { "carried text \($0 % 7), compressible. " }.joined()
            for name in ["Info.plist", "kept.txt", "changed.txt", "rewritten.txt"] {
                _ = try folder.write("in/Payload/A.app/" + name, text + name)
            }
            _ = try folder.write("in/Payload/A.app/A", String(repeating: "x", count: 5000))
            chmod(app + "/A", 0o755)
            // Made by Info-ZIP at its fastest level, so what this tool compresses again comes out other bytes.
            let ipa = folder.path("in.ipa")
            let zipped = try ProcessResult.run("/usr/bin/zip", ["-1", "-qry", ipa, "Payload"], in: folder.path("in"))
            try #require(zipped.status == 0, "zip: \(zipped.stderrText)")
            let reader = try ZipArchiveReader(path: ipa)
            let work = folder.path("work")
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            let carried = try reader.unpack(to: work, threads: 2)
            #expect(carried.count == 5)
            let unpacked = work + "/Payload/A.app"
            #expect(FileManager.default.isExecutableFile(atPath: unpacked + "/A"))
            _ = try folder.write("work/Payload/A.app/changed.txt", "new content")
            // Written again with the same bytes: no longer the file that was unpacked, so compressed again.
            try Data((text + "rewritten.txt").utf8).write(to: URL(fileURLWithPath: unpacked + "/rewritten.txt"))
            _ = try folder.write("work/Payload/A.app/added.txt", "a new file")
            var options = IPAPackager.Options()
            options.carried = carried
            let out = folder.path("out.ipa")
            _ = try IPAPackager(options: options).package(unpacked, to: out)
            let before = try Self.storedBytes(ipa), after = try Self.storedBytes(out)
            for name in ["Info.plist", "kept.txt", "A"] {
                #expect(after["Payload/A.app/" + name] == before["Payload/A.app/" + name], "\(name) carried")
            }
            #expect(after["Payload/A.app/changed.txt"] != before["Payload/A.app/changed.txt"])
            #expect(after["Payload/A.app/rewritten.txt"] != before["Payload/A.app/rewritten.txt"], "compressed again")
            #expect(after["Payload/A.app/added.txt"] != nil)
            // The rewritten file's content is the same, so it reads the same, whatever its bytes.
            #expect(try ZipArchiveReader(path: out).data(named: "Payload/A.app/rewritten.txt") == Data((text + "rewritten.txt").utf8))
            let names = try ZipArchiveReader(path: out).entries.map(\.name)
            let original = try ZipArchiveReader(path: ipa).entries.map(\.name)
            #expect(names.filter { original.contains($0) } == original)
            let unzip = try ProcessResult.run("/usr/bin/unzip", ["-tq", out])
            #expect(unzip.status == 0, "\(unzip.stdoutText)")
        }
    }

    /// A ZIP64 input (as Python's `zipfile` writes one with its limits lowered, so every size, offset
    /// and the entry count go through ZIP64 fields) has known data offsets, so its entries are
    /// carried as their stored bytes too, and the new ipa reads back whole.
    @Test func entriesOfAZIP64ArchiveAreCarriedAsTheirStoredBytes() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let script = """
                import sys, zipfile
                zipfile.ZIP64_LIMIT = 0
                zipfile.ZIP_FILECOUNT_LIMIT = 0
                text = ''.join('carried text %d, compressible. ' % (i % 7) for i in range(2000))
                with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                    for name in ['Info.plist', 'kept.txt', 'other.txt']:
                        z.writestr('Payload/A.app/' + name, text + name)
                """
            let ipa = folder.path("in.ipa")
            let made = try ProcessResult.run("/usr/bin/env", ["python3", "-c", script, ipa])
            try #require(made.status == 0, "\(made.stderrText)")
            let work = folder.path("work")
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            let carried = try ZipArchiveReader(path: ipa).unpack(to: work, threads: 2)
            #expect(carried.count == 3)
            var options = IPAPackager.Options()
            options.carried = carried
            let out = folder.path("out.ipa")
            _ = try IPAPackager(options: options).package(work + "/Payload/A.app", to: out)
            let before = try Self.storedBytes(ipa), after = try Self.storedBytes(out)
            for name in ["Info.plist", "kept.txt", "other.txt"] {
                #expect(after["Payload/A.app/" + name] == before["Payload/A.app/" + name], "\(name) carried")
            }
            let unzip = try ProcessResult.run("/usr/bin/unzip", ["-tq", out])
            #expect(unzip.status == 0, "\(unzip.stdoutText)")
        }
    }

    /// An ipa made by Info-ZIP at its fastest level (so what this tool compresses again comes out
    /// other bytes), unpacked into `work`: the reader's carried entries and the unpacked app.
    static func unpackedZip(in folder: TemporaryFolder) throws -> (ipa: String, carried: CarriedEntries, app: String) {
        let app = folder.path("in/Payload/A.app")
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        let text = (0..<2000).map { "carried text \($0 % 7), compressible. " }.joined()
        for name in ["Info.plist", "kept.txt", "other.txt"] { _ = try folder.write("in/Payload/A.app/" + name, text + name) }
        let ipa = folder.path("in.ipa")
        let zipped = try ProcessResult.run("/usr/bin/zip", ["-1", "-qry", ipa, "Payload"], in: folder.path("in"))
        try #require(zipped.status == 0, "zip: \(zipped.stderrText)")
        let work = folder.path("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let carried = try ZipArchiveReader(path: ipa).unpack(to: work, threads: 2)
        return (ipa, carried, work + "/Payload/A.app")
    }

    /// Flips one byte in the middle of `name`'s stored bytes in the archive at `path`, in place.
    static func damage(_ name: String, in path: String) throws {
        let reader = try ZipArchiveReader(path: path)
        let entry = try #require(reader.entries.first { $0.name == name })
        let offset = try #require(reader.dataOffset(of: entry)) + entry.compressedSize / 2
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ 0x5A])
    }

    @Test func aCarriedEntryDamagedAfterWritingIsCaughtByTheCheckOfItsStoredBytes() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, carried, app) = try Self.unpackedZip(in: folder)
            var options = IPAPackager.Options()
            options.carried = carried
            options.afterWriting = { try Self.damage("Payload/A.app/kept.txt", in: $0) }
            let out = folder.path("out.ipa")
            let error = expectDiagnostic(IPAProblem.self) { try IPAPackager(options: options).package(app, to: out) }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("Payload/A.app/kept.txt"), "\(message)")
            // Found by the CRC of its stored bytes, not by inflating it.
            #expect(message.contains("compressed bytes are not the ones carried"), "\(message)")
            #expect(!FileManager.default.fileExists(atPath: out))
            // Undamaged, the same packaging passes its check.
            options.afterWriting = nil
            _ = try IPAPackager(options: options).package(app, to: out)
            #expect(try ProcessResult.run("/usr/bin/unzip", ["-tq", out]).status == 0)
        }
    }

    @Test func anArchiveChangedAfterItWasUnpackedIsNotCarriedFrom() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (ipa, carried, app) = try Self.unpackedZip(in: folder)
            let before = try Self.storedBytes(ipa)
            // Changed in place (same inode): its bytes are no longer the ones checked as they were unpacked.
            try Self.damage("Payload/A.app/kept.txt", in: ipa)
            var options = IPAPackager.Options()
            options.carried = carried
            let out = folder.path("out.ipa")
            _ = try IPAPackager(options: options).package(app, to: out)
            let after = try Self.storedBytes(out)
            for name in ["Info.plist", "kept.txt", "other.txt"] {
                #expect(after["Payload/A.app/" + name] != before["Payload/A.app/" + name], "\(name) compressed again")
                let content = try ZipArchiveReader(path: out).data(named: "Payload/A.app/" + name)
                #expect(content == (try Data(contentsOf: URL(fileURLWithPath: app + "/" + name))))
            }
            #expect(try ProcessResult.run("/usr/bin/unzip", ["-tq", out]).status == 0)
        }
    }
}
