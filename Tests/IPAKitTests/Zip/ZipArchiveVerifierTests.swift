import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// The check after writing catches damage in the archive's bytes, in chunked and plain entries.
@Suite struct ZipArchiveVerifierTests {
    func written(_ folder: TemporaryFolder) throws -> (path: String, layouts: [String: ZipArchiveVerifier.Layout]) {
        let app = try IPAPackagerTests.makeApp(in: folder)
        let entries = try BundleTree.entries(of: app, prefix: "Payload/ShoutOut.app")
        let path = folder.path("unchecked.ipa")
        let (_, layouts) = try IPAPackager().write(entries, to: path)
        return (path, layouts)
    }

    /// The test app written with every file stored, unchecked.
    static func stored(_ folder: TemporaryFolder) throws -> String {
        let app = try IPAPackagerTests.makeApp(in: folder)
        let entries = try BundleTree.entries(of: app, prefix: "Payload/ShoutOut.app")
        let path = folder.path("stored.ipa")
        var options = IPAPackager.Options()
        options.level = 0
        _ = try IPAPackager(options: options).write(entries, to: path)
        return path
    }

    /// Verifies `path` expecting a failure about `entry` whose message starts with `prefix`.
    func expectFailure(
        _ path: String, layouts: [String: ZipArchiveVerifier.Layout] = [:], threads: Int = 2,
        entry: String, prefix: String = "failed verification: "
    ) {
        do {
            try ZipArchiveVerifier.verify(path, layouts: layouts, threads: threads, displayName: "out.ipa")
            Issue.record("damage went unnoticed")
        } catch let error as Diagnostic where error.is(IPAProblem.self) {
            #expect(error.entry == entry)
            #expect(error.message.hasPrefix(prefix))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func anIntactArchivePasses() throws {
        try withTemporaryFolder { folder in
            let (path, layouts) = try written(folder)
            #expect(layouts["Payload/ShoutOut.app/ShoutOut"]?.segmentLengths.count == 3)
            try ZipArchiveVerifier.verify(path, layouts: layouts, threads: 2, displayName: "out.ipa")
        }
    }

    @Test func aFlippedByteInAChunkedEntryIsCaught() throws {
        try withTemporaryFolder { folder in
            let (path, layouts) = try written(folder)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // The big executable's data sits early in the archive; damage a byte in its middle.
            let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/ShoutOut".utf8)))
            bytes[nameRange.upperBound + 1_500_000] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: path))
            expectFailure(path, layouts: layouts, entry: "Payload/ShoutOut.app/ShoutOut")
        }
    }

    @Test func aFlippedByteInAPlainEntryIsCaught() throws {
        try withTemporaryFolder { folder in
            let (path, layouts) = try written(folder)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/Base.lproj/Main.strings".utf8)))
            bytes[nameRange.upperBound + 40] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: path))
            expectFailure(path, layouts: layouts, entry: "Payload/ShoutOut.app/Base.lproj/Main.strings")
        }
    }

    /// Small deflated entries are inflated in batches on every core: damage in one of hundreds is
    /// still named, whichever batch it falls in.
    @Test(arguments: [0, 257, 499])
    func aFlippedByteInOneOfManySmallEntriesIsNamed(_ damaged: Int) throws {
        try withTemporaryFolder { folder in
            let app = folder.path("Many.app")
            try FileManager.default.createDirectory(atPath: app + "/Strings", withIntermediateDirectories: true)
            for index in 0..<500 {
                let text = (0..<40).map { "\"key\(index)-\($0)\" = \"value \($0 * index)\";\n" }.joined()
                try Data(text.utf8).write(to: URL(fileURLWithPath: app + "/Strings/\(index).strings"))
            }
            let entries = try BundleTree.entries(of: app, prefix: "Payload/Many.app")
            let path = folder.path("many.ipa")
            let (_, layouts) = try IPAPackager().write(entries, to: path)
            try ZipArchiveVerifier.verify(path, layouts: layouts, threads: 2, displayName: "out.ipa")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let name = "Payload/Many.app/Strings/\(damaged).strings"
            let nameRange = try #require(bytes.range(of: Data(name.utf8)))
            bytes[nameRange.upperBound + 30] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: path))
            expectFailure(path, layouts: layouts, entry: name)
        }
    }

    @Test func aFlippedByteInAStoredEntryIsCaughtWithTheCRCs() throws {
        try withTemporaryFolder { folder in
            let path = try Self.stored(folder)
            try ZipArchiveVerifier.verify(path, layouts: [:], threads: 2, displayName: "stored.ipa")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/Base.lproj/Main.strings".utf8)))
            bytes[nameRange.upperBound + 40] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: path))
            expectFailure(path, entry: "Payload/ShoutOut.app/Base.lproj/Main.strings", prefix: "failed verification: CRC ")
        }
    }

    /// The executable spans several 1 MiB blocks, whose CRCs are taken apart and combined.
    @Test func aFlippedByteLateInALargeStoredEntryIsCaught() throws {
        try withTemporaryFolder { folder in
            let path = try Self.stored(folder)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/ShoutOut".utf8)))
            bytes[nameRange.upperBound + 2_500_000] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: path))
            expectFailure(path, threads: 3, entry: "Payload/ShoutOut.app/ShoutOut", prefix: "failed verification: CRC ")
        }
    }

    @Test func aLocalHeaderNamingAnotherFileIsCaught() throws {
        try withTemporaryFolder { folder in
            let path = try Self.stored(folder)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // The first occurrence is the local header's copy of the name; the central directory keeps its own.
            let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/Info.plist".utf8)))
            bytes[nameRange.upperBound - 1] = UInt8(ascii: "x")
            try bytes.write(to: URL(fileURLWithPath: path))
            let error = try requireDiagnostic(IPAProblem.self) {
                try ZipArchiveVerifier.verify(path, layouts: [:], threads: 2, displayName: "stored.ipa")
            }
            #expect(error.message.hasPrefix("failed verification: "))
            #expect(error.file == "stored.ipa")
        }
    }

    @Test func aTruncatedArchiveIsCaught() throws {
        try withTemporaryFolder { folder in
            let path = try Self.stored(folder)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
            let error = try requireDiagnostic(IPAProblem.self) {
                try ZipArchiveVerifier.verify(path, layouts: [:], threads: 2, displayName: "stored.ipa")
            }
            #expect(error.message.hasPrefix("failed verification: "))
        }
    }

    /// Without libzip's reread of every local header, the offsets in the central directory are
    /// still checked: a record pointing a byte past its local header is caught and named.
    @Test func aCentralRecordPointingAwayFromItsLocalHeaderIsCaught() throws {
        try withTemporaryFolder { folder in
            let path = try Self.stored(folder)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let name = Data("Payload/ShoutOut.app/Info.plist".utf8)
            let local = try #require(bytes.range(of: name))
            // The second copy of the name is the central directory's; its record starts 46 bytes before it.
            let central = try #require(bytes.range(of: name, in: local.upperBound..<bytes.count))
            let field = central.lowerBound - 46 + 42
            bytes[field] = bytes[field] &+ 1
            try bytes.write(to: URL(fileURLWithPath: path))
            expectFailure(path, entry: "Payload/ShoutOut.app/Info.plist", prefix: "failed verification: the central directory puts")
        }
    }
}
