import Compression
import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// A large file re-signed after unpacking (its start and end changed) keeps its old stream's middle blocks.
@Suite struct DeflateSpliceTests {
    /// About 12 MB of text-like bytes that deflate well but not uniformly (so blocks end at any bit).
    static func content(seed: UInt64, size: Int = 12 << 20) -> [UInt8] {
        var state = seed
        let words = ["load", "command", "segment", "__TEXT", "symbol", "0x", "stub", "branch", "cstring", "objc"].map { Array($0.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 16)
        while bytes.count < size {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let pick = Int(state >> 33)
            if pick % 5 == 0 {
                bytes.append(UInt8(truncatingIfNeeded: state >> 17))  // a byte of noise
            } else {
                bytes += words[pick % words.count]
            }
        }
        return Array(bytes.prefix(size))
    }

    /// Zips `bytes` as `Payload/A.app/A` with Info-ZIP at `level`, unpacks the zip, and changes the
    /// unpacked file as signing does: a few bytes near its start, its last 200 KB, and 10 KB more.
    ///
    /// With `surveyed`, the zip is unpacked for a new archive (files surveyed for splicing, none left
    /// in it), and the change is written as a new file renamed over the old one, as the signer does
    /// (or, `inPlace`, into the file unpacked).
    static func resigned(_ bytes: [UInt8], level: String, in folder: TemporaryFolder, surveyed: Bool = false, inPlace: Bool = false)
        throws
        -> (ipa: String, carried: CarriedEntries, app: String, new: [UInt8])
    {
        try FileManager.default.createDirectory(atPath: folder.path("in/Payload/A.app"), withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder.path("in/Payload/A.app/A")))
        _ = try folder.write("in/Payload/A.app/Info.plist", "<plist/>")
        let ipa = folder.path("in.ipa")
        let zipped = try ProcessResult.run("/usr/bin/zip", [level, "-qry", ipa, "Payload"], in: folder.path("in"))
        try #require(zipped.status == 0, "zip: \(zipped.stderrText)")
        try FileManager.default.createDirectory(atPath: folder.path("work"), withIntermediateDirectories: true)
        let leaveNothing = ZipArchiveReader.LeavingRule(mayLeave: { _ in false }, mayLeaveContent: { _ in false })
        let carried = try ZipArchiveReader(path: ipa).unpack(to: folder.path("work"), threads: 2, leaving: surveyed ? leaveNothing : nil)
        var new = bytes
        for index in 100..<180 { new[index] ^= 0x55 }
        for index in (new.count - (200 << 10))..<new.count { new[index] = UInt8(truncatingIfNeeded: index &* 31) }
        new += (0..<(10 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let app = folder.path("work/Payload/A.app")
        try Data(new).write(to: URL(fileURLWithPath: app + "/A"), options: surveyed && !inPlace ? .atomic : [])
        return (ipa, carried, app, new)
    }

    /// Packages `app` carrying from `carried` and expects `A` to read back as `new` (here and by
    /// Info-ZIP); returns the ipa.
    static func expectPackagedReadsBack(_ app: String, carried: CarriedEntries, new: [UInt8], in folder: TemporaryFolder) throws
        -> String
    {
        var options = IPAPackager.Options()
        options.carried = carried
        let out = folder.path("out.ipa")
        _ = try IPAPackager(options: options).package(app, to: out)
        #expect(try ZipArchiveReader(path: out).data(named: "Payload/A.app/A") == Data(new))
        #expect(try ProcessResult.run("/usr/bin/unzip", ["-tq", out]).status == 0)
        return out
    }

    @Test(arguments: [(UInt64(1), "-6"), (UInt64(2), "-6"), (UInt64(3), "-9"), (UInt64(4), "-1")])
    func aResignedFileKeepsItsOldMiddleBlocksAndInflatesToItsNewBytes(seed: UInt64, level: String) throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, carried, app, new) = try Self.resigned(Self.content(seed: seed), level: level, in: folder)
            let entry = BundleTree.Entry(
                archivePath: "Payload/A.app/A", sourcePath: app + "/A", kind: .file, size: Int64(new.count), permissions: 0o755,
                modificationTime: 0)
            let spool = try Spool(in: folder.path("work"))
            let spliced = try #require(try IPAPackager().spliced(entry, from: carried, spool: spool))
            let kept = try #require(spliced.kept)
            let sizes = try #require(spliced.segmentSizes)
            // What it keeps starts a block or so after the changed start, and ends before the changed end.
            let keptStart = sizes[0..<kept.index].reduce(0, +)
            #expect(keptStart < 1 << 20, "kept from \(keptStart)")
            #expect(sizes[kept.index] > 10 << 20, "kept \(sizes[kept.index]) bytes")
            #expect(keptStart + sizes[kept.index] <= new.count - (200 << 10) - (10 << 10))
            #expect(sizes.reduce(0, +) == new.count)
            // The whole entry, packaged and checked, reads back as the new bytes (Info-ZIP and Python too).
            let out = try Self.expectPackagedReadsBack(app, carried: carried, new: new, in: folder)
            let python = try ProcessResult.run(
                "/usr/bin/python3",
                ["-c", "import sys, zipfile, zlib; print(zlib.crc32(zipfile.ZipFile(sys.argv[1]).read('Payload/A.app/A')))", out])
            #expect(
                python.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == String(new.withUnsafeBytes { Deflater.crc32(0, $0) }))
        }
    }

    /// Splicing a file surveyed as it was unpacked compares it with the file it was, and keeps the
    /// same blocks as inflating its old stream again; a file changed in place (the one surveyed) is
    /// not taken for the original, and is compared with the old stream instead.
    @Test(arguments: [(UInt64(7), "-6", false), (UInt64(8), "-9", false), (UInt64(9), "-6", true)])
    func aSurveyedFileIsSplicedAsTheOldStreamSays(seed: UInt64, level: String, changedInPlace: Bool) throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let bytes = Self.content(seed: seed)
            let (_, carried, app, new) = try Self.resigned(bytes, level: level, in: folder, surveyed: true, inPlace: changedInPlace)
            // Changed in place, the file surveyed no longer holds what the old stream inflates to.
            #expect((carried.survey(for: app + "/A") == nil) == changedInPlace)
            let entry = BundleTree.Entry(
                archivePath: "Payload/A.app/A", sourcePath: app + "/A", kind: .file, size: Int64(new.count), permissions: 0o755,
                modificationTime: 0)
            let spliced = try #require(try IPAPackager().spliced(entry, from: carried, spool: try Spool(in: folder.path("work"))))
            // The same plan as inflating the old stream again (an unpack that surveyed nothing).
            let plain = try withTemporaryFolder { (other: TemporaryFolder) throws -> PreparedEntry in
                let (_, otherCarried, otherApp, _) = try Self.resigned(bytes, level: level, in: other)
                var otherEntry = entry
                otherEntry.sourcePath = otherApp + "/A"
                return try #require(try IPAPackager().spliced(otherEntry, from: otherCarried, spool: try Spool(in: other.path("work"))))
            }
            #expect(spliced.segmentSizes == plain.segmentSizes && spliced.kept?.index == plain.kept?.index)
            #expect(spliced.crc == plain.crc)
            _ = try Self.expectPackagedReadsBack(app, carried: carried, new: new, in: folder)
        }
    }

    @Test func aKeptSegmentDamagedAfterWritingIsCaught() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, carried, app, _) = try Self.resigned(Self.content(seed: 5), level: "-6", in: folder)
            var options = IPAPackager.Options()
            options.carried = carried
            options.afterWriting = { try CarriedEntriesTests.damage("Payload/A.app/A", in: $0) }
            let error = expectDiagnostic(IPAProblem.self) { try IPAPackager(options: options).package(app, to: folder.path("out.ipa")) }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("Payload/A.app/A") && message.contains("kept from its old stream"), "\(message)")
        }
    }

    @Test func aFileChangedThroughoutIsCompressedAfresh() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, carried, app, _) = try Self.resigned(Self.content(seed: 6), level: "-6", in: folder)
            // Every 3 MB a byte differs: no run of equal bytes is worth keeping.
            var other = Self.content(seed: 6)
            for index in stride(from: 0, to: other.count, by: 3 << 20) { other[index] ^= 1 }
            try Data(other).write(to: URL(fileURLWithPath: app + "/A"))
            let entry = BundleTree.Entry(
                archivePath: "Payload/A.app/A", sourcePath: app + "/A", kind: .file, size: Int64(other.count), permissions: 0o755,
                modificationTime: 0)
            #expect(try IPAPackager().spliced(entry, from: carried, spool: try Spool(in: folder.path("work"))) == nil)
        }
    }
}
