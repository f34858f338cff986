import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Each way of breaking a seal is caught and named exactly: the bundle, the file, what changed.
@Suite(Fixtures.enabled) struct CodeSealTamperTests {
    static let test = "ipa-server_Test_dev-xcode12.ipa"
    static let withAppex = "app_info_embedded_enterprise-appex.ipa"

    /// `modified (sealed SHA-256 <old>…, now <new>…)` for a file whose bytes were `old` and are now `new`.
    static func modified(_ old: Data, _ new: Data) -> String {
        let hex = { (bytes: [UInt8]) in String(bytes.map { String(format: "%02x", $0) }.joined().prefix(8)) + "…" }
        return "modified (sealed SHA-256 \(hex(Digest.sha256(old))), now \(hex(Digest.sha256(new))))"
    }

    @Test func theUnpackedFixtureVerifies() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let report = try CodeSealVerifier().verify(path: app.app)
            #expect(report.problems == [])
            #expect(report.items.map(\.path) == ["Test.app"])
        }
    }

    @Test func oneByteOfAResource() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let old = try app.data("Assets.car")
            try app.flipByte("Assets.car", at: 1000)
            #expect(try app.problems() == ["Test.app: Assets.car: \(Self.modified(old, try app.data("Assets.car")))"])
            #expect(try app.kinds() == [.resourceModified])
        }
    }

    @Test func anAddedFile() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            try app.write("Base.lproj/extra.txt", Data("hello".utf8))
            #expect(try app.problems() == ["Test.app: Base.lproj/extra.txt: added, not sealed"])
            #expect(try app.kinds() == [.resourceAdded])
        }
    }

    @Test func aRemovedFile() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            try FileManager.default.removeItem(atPath: app.path("Assets.car"))
            #expect(try app.problems() == ["Test.app: Assets.car: missing"])
            #expect(try app.kinds() == [.resourceMissing])
        }
    }

    /// A sealed file replaced by a link: named as such.
    @Test func aResourceReplacedByALink() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            try FileManager.default.removeItem(atPath: app.path("Assets.car"))
            try FileManager.default.createSymbolicLink(atPath: app.path("Assets.car"), withDestinationPath: "Info.plist")
            #expect(try app.problems() == ["Test.app: Assets.car: sealed as a file, now a symbolic link to 'Info.plist'"])
            #expect(try app.kinds() == [.resourceModified])
        }
    }

    /// A FIFO where the seal names a file: the folder cannot be read, and verify says so, never
    /// waiting on the FIFO for a writer. A watcher stands in for the writer that never comes (see
    /// ``FIFOReaderWatcher``): it sees a verify that opened the FIFO to read and ends its wait, so
    /// the test does not hang on the mistake, and its time is not limited by a clock that a busy test
    /// pool can run out (the generous limit left only stops a hang of another kind).
    @Test(.timeLimit(.minutes(20))) func aResourceReplacedByAFIFOIsAnErrorNotAHang() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            try FileManager.default.removeItem(atPath: app.path("Assets.car"))
            try #require(mkfifo(app.path("Assets.car"), 0o644) == 0)
            let watcher = FIFOReaderWatcher(path: app.path("Assets.car"))
            let error = #expect(throws: (any Error).self) { try CodeSealVerifier().verify(path: app.app) }
            #expect(!watcher.stop(), "verify opened the FIFO for reading")
            #expect(String(describing: error).contains("Assets.car"))
        }
    }

    @Test func oneByteOfTheTextSegment() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let machO = try MachOFile(data: try app.data("Test"))
            let slice = try #require(machO.slices.first)
            let text = try #require(slice.segment(named: "__TEXT")?.sections.first { $0.name == "__text" })
            let offset = Int(text.fileOffset) + 10
            let directory = try #require(try slice.embeddedSignature()?.codeDirectory)
            try app.flipByte("Test", at: offset)
            let page = offset / directory.pageSize, start = page * directory.pageSize
            #expect(
                try app.problems() == [
                    "Test.app: Test: code page \(page) of \(directory.codeSlots.count) (bytes 0x\(String(start, radix: 16))..<0x\(String(start + directory.pageSize, radix: 16))) modified"
                ])
            #expect(try app.kinds() == [.pageModified])
        }
    }

    @Test func anInfoPlistEdit() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let old = try app.data("Info.plist")
            var info = try #require(try PropertyList(data: old).value.dictionaryValue)
            info["CFBundleVersion"] = .string("5")
            let new = try PropertyList.encode(.dictionary(info), format: .binary)
            try app.write("Info.plist", new)
            // Info.plist is omitted from files2 (rules2) and bound by special slot 1.
            #expect(try app.problems() == ["Test.app: Info.plist: \(Self.modified(old, new))"])
            #expect(try app.kinds() == [.specialSlotModified])
        }
    }

    @Test func aSwappedProvisioningProfile() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let old = try app.data("embedded.mobileprovision")
            let new = try Data(contentsOf: Fixtures.url("mobileprovision", "app_info_ios_development.mobileprovision"))
            try app.write("embedded.mobileprovision", new)
            #expect(try app.problems() == ["Test.app: embedded.mobileprovision: \(Self.modified(old, new))"])
            #expect(try app.kinds() == [.resourceModified])
        }
    }

    @Test func aChangedFileInsideANestedAppex() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.withAppex, in: folder)
            let file = "PlugIns/Notification.appex/embedded.mobileprovision"
            let old = try app.data(file)
            try app.flipByte(file, at: 200)
            let change = Self.modified(old, try app.data(file))
            // The extension's own seal and the app's file-by-file seal over it both break.
            #expect(
                try app.problems() == [
                    "Demo.app/PlugIns/Notification.appex: embedded.mobileprovision: \(change)", "Demo.app: \(file): \(change)"
                ])
            #expect(try app.kinds() == [.resourceModified, .resourceModified])
        }
    }

    @Test func aTruncatedSignatureIsAOneLineProblem() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let slice = try #require(try MachOFile(data: try app.data("Test")).slices.first)
            let location = try #require(slice.codeSignature)
            // The super blob claims more bytes than LC_CODE_SIGNATURE holds.
            var bytes = try app.data("Test")
            let lengthField = Int(location.dataOffset) + 4
            bytes.replaceSubrange(lengthField..<lengthField + 4, with: [0x7f, 0xff, 0xff, 0xff])
            try app.write("Test", bytes)
            let report = try CodeSealVerifier().verify(path: app.app)
            #expect(report.items.map(\.status) == [.unreadable])
            let lines = report.problems.map(\.description)
            #expect(lines.count == 1)
            #expect(lines.allSatisfy { $0.hasPrefix("Test.app: Test: the signature cannot be read: ") && !$0.contains("\n") })
            #expect(report.problems.map(\.kind) == [.malformed])

            // And a file cut inside its signature.
            try app.write("Test", bytes.prefix(Int(location.dataOffset) + 100))
            let cut = try app.problems()
            #expect(cut.count == 1)
            #expect(cut.first?.hasPrefix("Test.app: Test: not a Mach-O file that can be read: ") == true)
            #expect(cut.first?.contains("runs past the end of the slice") == true)
        }
    }

    @Test func aCodeResourcesThatIsNotAPlist() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let old = try app.data("_CodeSignature/CodeResources")
            let new = Data("not a plist".utf8)
            try app.write("_CodeSignature/CodeResources", new)
            let lines = try app.problems()
            #expect(lines.count == 2)
            #expect(lines.first?.hasPrefix("Test.app: _CodeSignature/CodeResources: CodeResources is not a property list") == true)
            #expect(lines.last == "Test.app: _CodeSignature/CodeResources: \(Self.modified(old, new))")
            #expect(try app.kinds() == [.malformed, .specialSlotModified])
        }
    }

    /// No fixture seals nested code by cdhash (iOS rules seal it file by file), so one is made: the
    /// app's CodeResources rewritten to seal its extension by cdhash, right and then wrong.
    @Test func aWrongCdhashOfNestedCode() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.withAppex, in: folder)
            let old = try app.data("_CodeSignature/CodeResources")
            var resources = try CodeResources(data: old)
            resources.rules2.append(ResourceRule("^PlugIns/", weight: 30, nested: true))
            for path in resources.files2.keys where path.hasPrefix("PlugIns/") { resources.files2[path] = nil }
            let appex = try #require(try CodeSealVerifier().verify(path: app.app).items.first { $0.kind == .appex })
            let cdhash = try #require(appex.cdhash)
            resources.files2["PlugIns/Notification.appex"] = ResourceSeal(cdhash: cdhash, requirement: "cdhash H\"\(cdhash)\"")
            var new = try resources.data()
            try app.write("_CodeSignature/CodeResources", new)
            let slot = "Demo.app: _CodeSignature/CodeResources: \(Self.modified(old, new))"
            #expect(try app.problems() == [slot])
            #expect(try app.kinds() == [.specialSlotModified])

            var wrong = cdhash
            wrong[0] ^= 1
            resources.files2["PlugIns/Notification.appex"] = ResourceSeal(cdhash: wrong)
            new = try resources.data()
            try app.write("_CodeSignature/CodeResources", new)
            let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
            #expect(
                try app.problems() == [
                    "Demo.app: _CodeSignature/CodeResources: \(Self.modified(old, new))",
                    "Demo.app: PlugIns/Notification.appex: nested code modified (sealed cdhash \(hex(wrong)), now \(hex(cdhash)))"
                ])
            #expect(try app.kinds() == [.specialSlotModified, .nestedCodeModified])
        }
    }
}
