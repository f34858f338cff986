import CZlib
import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// The mapped archive walks local headers as written and takes CRCs that agree with zlib's,
/// however ranges fall across its read blocks and threads.
@Suite struct MappedArchiveTests {
    @Test(arguments: [1, 2, 3])
    func crcsOfRangesAcrossBlocksAgreeWithZlib(threads: Int) throws {
        try withTemporaryFolder { folder in
            var generator = SystemRandomNumberGenerator()
            let data = (0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = try folder.write("data.bin", Data(data))
            let mapped = try MappedArchive(path, displayName: "data.bin")
            let ranges = [0..<0, 0..<1, 5..<700, 700..<4096, 4096..<4096, 4097..<9_999, 9_999..<10_000]
            for blockSize in [1, 64, 1_000, 4096, 1 << 20] {
                let crcs = try mapped.crcs(of: ranges, threads: threads, blockSize: blockSize)
                let expected = ranges.map { range in
                    data[range].withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
                }
                #expect(crcs == expected, "block size \(blockSize)")
            }
        }
    }

    @Test func localEntriesAreTheHeadersAsWritten() throws {
        try withTemporaryFolder { folder in
            let path = try ZipArchiveVerifierTests.stored(folder)
            let entries = try BundleTree.entries(of: folder.path("ShoutOut.app"), prefix: "Payload/ShoutOut.app")
            let locals = try MappedArchive(path, displayName: "stored.ipa").localEntries()
            #expect(locals.map(\.nameText) == entries.map(\.archivePath))
            for (local, entry) in zip(locals, entries) {
                #expect(local.method == 0)
                if case .file = entry.kind { #expect(local.size == Int(entry.size)) }
            }
            #expect(locals.first?.headerOffset == 0)
        }
    }

    @Test func anEmptyFileIsAClearError() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("empty.ipa", "")
            let error = try requireDiagnostic(IPAProblem.self) { _ = try MappedArchive(path, displayName: "empty.ipa") }
            #expect(error.message == "failed verification: the archive is empty")
        }
    }

    /// Letting go of the walked part of the map (here after every header) changes nothing read.
    @Test func theWalkReadsTheSameWhenItLetsGoOfTheMapAsItGoes() throws {
        try withTemporaryFolder { folder in
            let path = try ZipArchiveVerifierTests.stored(folder)
            let mapped = try MappedArchive(path, displayName: "stored.ipa")
            let kept = try mapped.localEntries(releaseEvery: .max)
            let released = try mapped.localEntries(releaseEvery: 1)
            #expect(released.map(\.name) == kept.map(\.name))
            #expect(released.map(\.dataOffset) == kept.map(\.dataOffset))
            #expect(released.map(\.crc) == kept.map(\.crc))
            #expect(kept.count > 10)
        }
    }

    @Test func rangesReadFromTheFileAreItsBytes() throws {
        try withTemporaryFolder { folder in
            let data = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let path = try folder.write("data.bin", Data(data))
            let mapped = try MappedArchive(path, displayName: "data.bin")
            #expect(try mapped.read(0..<0) == [])
            #expect(try mapped.read(100..<4_321) == Array(data[100..<4_321]))
            let error = try requireDiagnostic(IPAProblem.self) { _ = try mapped.read(4_990..<5_010) }
            #expect(error.message == "failed verification: the archive ends early")
        }
    }

    /// The central directory as read here (so libzip need not reopen every archive) is the one
    /// Python's zipfile reads, field by field, and its offsets are where the local headers are.
    @Test(arguments: [0, 6])
    func theCentralDirectoryIsTheOneZipfileReads(level: Int) throws {
        try withTemporaryFolder { folder in
            let app = try IPAPackagerTests.makeApp(in: folder)
            let entries = try BundleTree.entries(of: app, prefix: "Payload/ShoutOut.app")
            let path = folder.path("checked.ipa")
            var options = IPAPackager.Options()
            options.level = level
            _ = try IPAPackager(options: options).write(entries, to: path)
            let mapped = try MappedArchive(path, displayName: "checked.ipa")
            let records = try #require(try mapped.centralDirectory())
            #expect(records.map(\.localHeaderOffset) == (try mapped.localEntries()).map(\.headerOffset))
            let python = try #require(ProcessResult.which("python3"))
            let script = """
                import sys, zipfile
                for i in zipfile.ZipFile(sys.argv[1]).infolist():
                    print(i.filename, i.compress_type, i.CRC, i.compress_size, i.file_size, i.header_offset)
                """
            let zipfile = try ProcessResult.run(python, ["-c", script, path]).stdoutText
            let ours = records.map {
                "\($0.nameText) \($0.method) \($0.crc) \($0.compressedSize) \($0.size) \($0.localHeaderOffset ?? -1)\n"
            }
            #expect(zipfile == ours.joined())
            #expect(records.count > 10)
        }
    }

    /// A saturated count marks a ZIP64 archive, whose records are left to libzip.
    @Test func aZip64EndRecordLeavesTheOffsetsToLibzip() throws {
        try withTemporaryFolder { folder in
            var record: [UInt8] = [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
            record += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0]
            let path = try folder.write("zip64.ipa", Data([0x50, 0x4B, 0x06, 0x06] + record))
            #expect(try MappedArchive(path, displayName: "zip64.ipa").centralDirectory() == nil)
        }
    }

    @Test func aMissingEndRecordIsAClearError() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("junk.ipa", Data(repeating: 0x41, count: 100))
            let error = try requireDiagnostic(IPAProblem.self) {
                _ = try MappedArchive(path, displayName: "junk.ipa").centralDirectory()
            }
            #expect(error.message == "failed verification: it has no end of central directory record")
            #expect(error.file == "junk.ipa")
        }
    }
}
