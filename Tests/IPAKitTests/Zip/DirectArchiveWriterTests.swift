import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// adhocbuild frames archives itself; libzip, which frames those that need ZIP64, must give
/// the same bytes for the same entries, stored or deflated.
@Suite struct DirectArchiveWriterTests {
    static func stored(_ entries: [BundleTree.Entry], to path: String, with writer: IPAPackager.ArchiveFraming) throws -> Data {
        try packaged(entries, level: 0, to: path, with: writer)
    }

    static func packaged(_ entries: [BundleTree.Entry], level: Int, to path: String, with writer: IPAPackager.ArchiveFraming)
        throws -> Data
    {
        var options = IPAPackager.Options()
        options.level = level
        _ = try IPAPackager(options: options).write(entries, to: path, writer: writer)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Files of every size from 0 to 300 bytes in nested folders, some with non-ASCII and long names.
    static func makeSmallTree(in folder: TemporaryFolder) throws -> String {
        for size in 0...300 {
            let name = size % 7 == 0 ? "Ünïcödé \(size).txt" : String(repeating: "n", count: size % 90 + 1) + ".dat"
            try folder.create(
                "Small.app/Folder\(size % 5)/Sub\(size % 3)/\(name)",
                Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }))
        }
        try folder.create("Small.app/Info.plist", Data("<plist/>".utf8))
        try FileManager.default.createSymbolicLink(atPath: folder.path("Small.app/Link"), withDestinationPath: "Folder1/Sub1")
        return folder.path("Small.app")
    }

    @Test func storingFramesEveryEntryExactlyAsLibzipDoes() throws {
        try withTemporaryFolder { folder in
            let app = try IPAPackagerTests.makeApp(in: folder)
            // Real times and modes, not normalised ones, so the times and attributes are compared too.
            let entries = try BundleTree.entries(of: app, prefix: "Payload/ShoutOut.app")
            let ours = try Self.stored(entries, to: folder.path("direct.ipa"), with: .direct())
            let libzip = try Self.stored(entries, to: folder.path("libzip.ipa"), with: .libzip)
            #expect(ours.count == libzip.count)
            #expect(ours == libzip, "the stored archive differs from libzip's framing of the same entries")
            // And readers nobody here wrote accept it.
            try ZipArchiveVerifier.verify(folder.path("direct.ipa"), layouts: [:], threads: 2, displayName: "direct.ipa")
            let lines = try IPAPackagerTests.describe(folder.path("direct.ipa"))
            #expect(lines.count == entries.count)
            #expect(lines.allSatisfy { $0.split(separator: "\t")[5] == "0" })
        }
    }

    @Test(arguments: [1, 6, 9])
    func deflatedEntriesAreFramedExactlyAsLibzipFramesThem(level: Int) throws {
        try withTemporaryFolder { folder in
            // The app has a binary over several 1 MiB chunks; the small tree has files that do not
            // shrink (stored), empty ones, non-ASCII names, folders and a link.
            let app = try IPAPackagerTests.makeApp(in: folder)
            let small = try Self.makeSmallTree(in: folder)
            let entries =
                try BundleTree.entries(of: app, prefix: "Payload/ShoutOut.app")
                + BundleTree.entries(of: small, prefix: "Payload/Small.app")
            let libzip = try Self.packaged(entries, level: level, to: folder.path("libzip.ipa"), with: .libzip)
            for bufferSize in [DirectArchiveWriter.defaultBufferSize, 65_537, 29] {
                let ours = try Self.packaged(entries, level: level, to: folder.path("direct.ipa"), with: .direct(bufferSize: bufferSize))
                #expect(ours == libzip, "level \(level), buffers of \(bufferSize) bytes: the archive differs from libzip's")
                #expect(Int64(ours.count) == DirectArchiveWriter.archiveSize(entries, prepared: try Self.preparedSizes(of: ours, entries)))
            }
            #expect(try IPAPackagerTests.describe(folder.path("direct.ipa")).count == entries.count)
            try ZipArchiveVerifier.verify(folder.path("direct.ipa"), layouts: [:], threads: 2, displayName: "direct.ipa")
        }
    }

    /// Each file entry's compressed size in `archive`, as ``DirectArchiveWriter/archiveSize(_:prepared:)`` takes them.
    static func preparedSizes(of archive: Data, _ entries: [BundleTree.Entry]) throws -> [Int: PreparedEntry] {
        var sizes: [Int: PreparedEntry] = [:]
        var offset = 0
        for (index, entry) in entries.enumerated() {
            func field(_ at: Int, _ width: Int) -> Int {
                (0..<width).reduce(0) { $0 | Int(archive[offset + at + $1]) << (8 * $1) }
            }
            #expect(field(0, 4) == 0x0403_4B50, "no local header for \(entry.archivePath)")
            let compressed = field(18, 4)
            if case .file = entry.kind { sizes[index] = PreparedEntry(segments: [(0, compressed)]) }
            offset += 30 + field(26, 2) + field(28, 2) + compressed
        }
        return sizes
    }

    /// The space reserved up front is the archive's exact size, and reserving never makes the file longer.
    @Test func theReservedSizeIsTheArchivesSize() throws {
        try withTemporaryFolder { folder in
            let entries = try BundleTree.entries(of: try Self.makeSmallTree(in: folder), prefix: "Payload/Small.app")
            let archive = try Self.stored(entries, to: folder.path("small.ipa"), with: .direct())
            #expect(Int64(archive.count) == DirectArchiveWriter.archiveSize(entries))
            let writer = try DirectArchiveWriter(creating: folder.path("reserved.ipa"))
            writer.reserve(1 << 20)
            // The file system allocated the space (the ext4 and tmpfs folders tests run in support it).
            var info = stat()
            #expect(stat(folder.path("reserved.ipa"), &info) == 0 && Int(info.st_blocks) * 512 >= 1 << 20, "\(info.st_blocks) blocks")
            try writer.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("reserved.ipa"))).count == 22)
        }
    }

    @Test(arguments: [1, 3, 29, 64, 4096])
    func anyBufferSizeGivesTheSameBytes(bufferSize: Int) throws {
        // Tiny buffers put local headers, and the CRC inside them, across buffer boundaries,
        // so the CRC is filled in partly in memory and partly after the bytes were handed over.
        try withTemporaryFolder { folder in
            let entries = try BundleTree.entries(of: try Self.makeSmallTree(in: folder), prefix: "Payload/Small.app")
            let expected = try Self.stored(entries, to: folder.path("libzip.ipa"), with: .libzip)
            let ours = try Self.stored(entries, to: folder.path("direct.ipa"), with: .direct(bufferSize: bufferSize))
            #expect(ours == expected)
        }
    }

    @Test func aLargeFileAcrossManyBuffersGivesTheSameBytes() throws {
        try withTemporaryFolder { folder in
            let entries = try BundleTree.entries(of: try IPAPackagerTests.makeApp(in: folder), prefix: "Payload/ShoutOut.app")
            let expected = try Self.stored(entries, to: folder.path("libzip.ipa"), with: .libzip)
            let ours = try Self.stored(entries, to: folder.path("direct.ipa"), with: .direct(bufferSize: 65_537))
            #expect(ours == expected)
        }
    }

    @Test func aFileThatShrinksWhileBeingStoredIsAnErrorNamingIt() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeSmallTree(in: folder)
            let entries = try BundleTree.entries(of: app, prefix: "Payload/Small.app")
            let victim = try #require(entries.first { $0.size == 250 })
            truncate(victim.sourcePath, 100)
            #expect(throws: Diagnostic.ipa("changed while it was being read (shorter than 250 bytes)", file: victim.sourcePath)) {
                _ = try Self.stored(entries, to: folder.path("out.ipa"), with: .direct())
            }
            unlink(victim.sourcePath)
            #expect(throws: Diagnostic.system("cannot be read", file: victim.sourcePath, code: ENOENT)) {
                _ = try Self.stored(entries, to: folder.path("out.ipa"), with: .direct())
            }
        }
    }

    @Test func aFailedWriteNamesTheArchive() throws {
        try withTemporaryFolder { folder in
            let entries = try BundleTree.entries(of: try Self.makeSmallTree(in: folder), prefix: "Payload/Small.app")
            #expect(throws: Diagnostic.system("cannot be written", file: "/dev/full", code: ENOSPC)) {
                var options = IPAPackager.Options()
                options.level = 0
                _ = try IPAPackager(options: options).write(entries, to: "/dev/full", writer: .direct(bufferSize: 4096))
            }
        }
    }

    @Test func archivesThatNeedZip64AreLeftToLibzip() throws {
        func entry(_ name: String, size: Int64) -> BundleTree.Entry {
            BundleTree.Entry(
                archivePath: name, sourcePath: "/nonexistent", kind: .file, size: size, permissions: 0o644,
                modificationTime: 0)
        }
        #expect(DirectArchiveWriter.fits([entry("a", size: 4_000_000_000)]))
        #expect(!DirectArchiveWriter.fits([entry("a", size: 3_000_000_000), entry("b", size: 1_300_000_000)]))
        #expect(!DirectArchiveWriter.fits((0..<65_535).map { entry("f\($0)", size: 0) }))
        #expect(DirectArchiveWriter.fits((0..<65_534).map { entry("f\($0)", size: 0) }))

        // A real one with too many entries: packaged through libzip, with the ZIP64 warning.
        return try withTemporaryFolder { folder in
            try folder.create("Many.app/Info.plist", Data("<plist/>".utf8))
            for index in 0..<65_600 {
                let path = folder.path("Many.app/F\(index % 64)/\(index)")
                if index < 64 {
                    try FileManager.default.createDirectory(
                        atPath: (path as NSString).deletingLastPathComponent,
                        withIntermediateDirectories: true)
                }
                #expect(FileManager.default.createFile(atPath: path, contents: nil))
            }
            var options = IPAPackager.Options()
            options.level = 0
            let report = try IPAPackager(options: options).package(folder.path("Many.app"), to: folder.path("many.ipa"))
            #expect(report.entries == 65_600 + 64 + 3)
            #expect(report.warnings.contains { $0.message.hasPrefix("the ipa needs ZIP64") && $0.severity == .warning })
            let python = try #require(ProcessResult.which("python3"))
            let count = try ProcessResult.run(
                python,
                [
                    "-c", "import sys, zipfile; print(len(zipfile.ZipFile(sys.argv[1]).infolist()))",
                    folder.path("many.ipa")
                ])
            #expect(count.stdoutText == "\(65_600 + 64 + 3)\n")
        }
    }
}
