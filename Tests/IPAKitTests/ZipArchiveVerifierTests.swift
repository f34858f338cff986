import Foundation
@testable import IPAKit
import TestSupport
import Testing

/// The check after writing catches damage in the archive's bytes, in chunked and plain entries.
@Suite struct ZipArchiveVerifierTests {
    func written(_ folder: TemporaryFolder) throws -> (path: String, layouts: [String: ZipArchiveVerifier.Layout]) {
        let app = try IPAPackagerTests.makeApp(in: folder)
        let entries = try BundleTree.entries(of: app, prefix: "Payload/ShoutOut.app")
        let path = folder.path("unchecked.ipa")
        let (_, layouts) = try IPAPackager().write(entries, to: path)
        return (path, layouts)
    }

    @Test func anIntactArchivePasses() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, layouts) = try written(folder)
        #expect(layouts["Payload/ShoutOut.app/ShoutOut"]?.segmentLengths.count == 3)
        try ZipArchiveVerifier.verify(path, layouts: layouts, threads: 2, displayName: "out.ipa")
    }

    @Test func aFlippedByteInAChunkedEntryIsCaught() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, layouts) = try written(folder)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // The big executable's data sits early in the archive; damage a byte in its middle.
        let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/ShoutOut".utf8)))
        bytes[nameRange.upperBound + 1_500_000] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: path))
        do {
            try ZipArchiveVerifier.verify(path, layouts: layouts, threads: 2, displayName: "out.ipa")
            Issue.record("damage went unnoticed")
        } catch let error as IPAError {
            #expect(error.entry == "Payload/ShoutOut.app/ShoutOut")
            #expect(error.message.hasPrefix("failed verification: "))
        }
    }

    @Test func aFlippedByteInAPlainEntryIsCaught() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (path, layouts) = try written(folder)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/Base.lproj/Main.strings".utf8)))
        bytes[nameRange.upperBound + 40] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: IPAError.self) { try ZipArchiveVerifier.verify(path, layouts: layouts, threads: 2, displayName: "out.ipa") }
    }

    @Test func aFlippedByteInAStoredEntryIsCaughtWithTheCRCs() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try IPAPackagerTests.makeApp(in: folder)
        let entries = try BundleTree.entries(of: app, prefix: "Payload/ShoutOut.app")
        let path = folder.path("stored.ipa")
        var options = IPAPackager.Options()
        options.level = 0
        _ = try IPAPackager(options: options).write(entries, to: path)
        try ZipArchiveVerifier.verify(path, layouts: [:], threads: 2, displayName: "stored.ipa")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let nameRange = try #require(bytes.range(of: Data("Payload/ShoutOut.app/Base.lproj/Main.strings".utf8)))
        bytes[nameRange.upperBound + 40] ^= 0x5A
        try bytes.write(to: URL(fileURLWithPath: path))
        do {
            try ZipArchiveVerifier.verify(path, layouts: [:], threads: 2, displayName: "stored.ipa")
            Issue.record("damage went unnoticed")
        } catch let error as IPAError {
            #expect(error.entry == "Payload/ShoutOut.app/Base.lproj/Main.strings")
            #expect(error.message.hasPrefix("failed verification: CRC "))
        }
    }
}
