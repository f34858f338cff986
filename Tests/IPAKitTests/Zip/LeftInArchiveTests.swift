import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// An ipa unpacked leaving files in the archive (``ZipArchiveReader/LeavingRule``): the folder holds
/// only what the rule keeps out, and a new ipa made of it has every entry, the left ones as the same
/// compressed bytes.
@Suite struct LeftInArchiveTests {
    /// Leaves `.txt` files whose content does not start with `KEEP`.
    static let rule = ZipArchiveReader.LeavingRule(
        mayLeave: { $0.name.hasSuffix(".txt") }, mayLeaveContent: { !$0.starts(with: Array("KEEP".utf8)) })

    /// An ipa by Info-ZIP at its fastest level: Info.plist, three texts (one starting `KEEP`, one
    /// executable-looking by its mode and named `.txt` still), a link, an empty text and a nested
    /// folder; unpacked into `work` with ``rule``.
    static func unpacked(in folder: TemporaryFolder) throws -> (ipa: String, carried: CarriedEntries, app: String) {
        let text = (0..<2000).map { "left text \($0 % 7), compressible. " }.joined()
        try FileManager.default.createDirectory(atPath: folder.path("in/Payload/A.app/Sub/Deeper"), withIntermediateDirectories: true)
        for name in ["left.txt", "Sub/Deeper/nested.txt"] { _ = try folder.write("in/Payload/A.app/" + name, text + name) }
        let info = "<plist version=\"1.0\"><dict><key>CFBundleIdentifier</key><string>com.example.a</string></dict></plist>"
        _ = try folder.write("in/Payload/A.app/Info.plist", info)
        _ = try folder.write("in/Payload/A.app/kept.txt", "KEEP " + text)
        _ = try folder.write("in/Payload/A.app/empty.txt", "")
        try FileManager.default.createSymbolicLink(atPath: folder.path("in/Payload/A.app/link.txt"), withDestinationPath: "left.txt")
        let ipa = folder.path("in.ipa")
        let zipped = try ProcessResult.run("/usr/bin/zip", ["-1", "-qry", ipa, "Payload"], in: folder.path("in"))
        try #require(zipped.status == 0, "zip: \(zipped.stderrText)")
        let work = folder.path("work")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let carried = try ZipArchiveReader(path: ipa).unpack(to: work, threads: 2, leaving: rule)
        return (ipa, carried, work + "/Payload/A.app")
    }

    @Test func onlyWhatTheRuleKeepsOutIsWrittenAndEveryFolderAndLinkIsMade() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, carried, app) = try Self.unpacked(in: folder)
            let manager = FileManager.default
            #expect(manager.fileExists(atPath: app + "/Info.plist"))
            #expect(manager.fileExists(atPath: app + "/kept.txt"), "its content keeps it out")
            #expect(manager.fileExists(atPath: app + "/empty.txt"), "an empty file is always written")
            #expect(FileIO.linkTarget(app + "/link.txt") == "left.txt")
            #expect(FileIO.kind(of: app + "/Sub/Deeper") == .folder)
            for name in ["left.txt", "Sub/Deeper/nested.txt"] {
                var info = stat()
                #expect(lstat(app + "/" + name, &info) != 0, "\(name) is left in the archive")
            }
            let left = carried.leftInArchive(under: app).map(\.path).sorted()
            #expect(left == [app + "/Sub/Deeper/nested.txt", app + "/left.txt"])
            #expect(carried.leftInArchive(under: app + "/Sub").map(\.path) == [app + "/Sub/Deeper/nested.txt"])
        }
    }

    @Test func aNewIPAHoldsEveryEntryTheLeftOnesAsTheirStoredBytesInTheArchivesOrder() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (ipa, carried, app) = try Self.unpacked(in: folder)
            var options = IPAPackager.Options()
            options.carried = carried
            let out = folder.path("out.ipa")
            _ = try IPAPackager(options: options).package(app, to: out)
            let before = try CarriedEntriesTests.storedBytes(ipa), after = try CarriedEntriesTests.storedBytes(out)
            for name in ["left.txt", "Sub/Deeper/nested.txt", "kept.txt", "Info.plist"] {
                #expect(after["Payload/A.app/" + name] == before["Payload/A.app/" + name], "\(name) carried")
            }
            let original = try ZipArchiveReader(path: ipa).entries, made = try ZipArchiveReader(path: out).entries
            #expect(made.filter { !$0.isDirectory }.map(\.name) == original.filter { !$0.isDirectory }.map(\.name))
            let modes = Dictionary(made.map { ($0.name, $0.mode) }, uniquingKeysWith: { first, _ in first })
            for entry in original where !entry.isDirectory { #expect(modes[entry.name] == entry.mode, "\(entry.name) mode") }
            let unzip = try ProcessResult.run("/usr/bin/unzip", ["-tq", out])
            #expect(unzip.status == 0, "\(unzip.stdoutText)")
        }
    }

    @Test func aFilePutWhereOneWasLeftGoesInInsteadCompressedAgain() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, carried, app) = try Self.unpacked(in: folder)
            _ = try folder.write("work/Payload/A.app/left.txt", "written over")
            #expect(carried.leftInArchive(under: app).map(\.path) == [app + "/Sub/Deeper/nested.txt"])
            #expect(carried.leftEntry(at: app + "/left.txt") == nil)
            var options = IPAPackager.Options()
            options.carried = carried
            let out = folder.path("out.ipa")
            _ = try IPAPackager(options: options).package(app, to: out)
            #expect(try ZipArchiveReader(path: out).data(named: "Payload/A.app/left.txt") == Data("written over".utf8))
            // A storage of the folder sees the new file, and the other left one through the archive.
            let package = try AppPackage.open(unpackedApp: app, carried: carried)
            #expect(try package.app.storage.read("A.app/left.txt") == Data("written over".utf8))
            let nested = try package.app.storage.read("A.app/Sub/Deeper/nested.txt")
            #expect(nested == (try ZipArchiveReader(path: out).data(named: "Payload/A.app/Sub/Deeper/nested.txt")))
            #expect(package.app.storage.files["A.app/Sub/Deeper/nested.txt"]?.size == Int64(nested.count))
        }
    }

    @Test func anArchiveChangedAfterFilesWereLeftInItIsRefusedNotPackagedWithoutThem() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (ipa, carried, app) = try Self.unpacked(in: folder)
            try CarriedEntriesTests.damage("Payload/A.app/kept.txt", in: ipa)
            var options = IPAPackager.Options()
            options.carried = carried
            let out = folder.path("out.ipa")
            let error = expectDiagnostic(IPAProblem.self) { try IPAPackager(options: options).package(app, to: out) }
            #expect(error.map { "\($0)" }?.contains("in.ipa: changed while it was being read") == true, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test func storingUncompressedAFolderWithFilesLeftInItsArchiveIsRefused() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, carried, app) = try Self.unpacked(in: folder)
            var options = IPAPackager.Options()
            options.carried = carried
            options.level = 0
            let out = folder.path("out.ipa")
            _ = expectDiagnostic(IPAProblem.self) { try IPAPackager(options: options).package(app, to: out) }
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}
