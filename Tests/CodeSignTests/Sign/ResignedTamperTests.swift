import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// The tamper cases of ``CodeSealTamperTests`` applied to fixtures re-signed here: the seals we write
/// break as Apple's do, each named exactly.
@Suite(Fixtures.enabled) struct ResignedTamperTests {
    /// A fixture re-signed with the RSA identity (and the identities, to sign it again with another).
    static func signed(_ ipa: String, in folder: TemporaryFolder) throws -> (app: TamperedApp, made: TestIdentities) {
        let made = try TestIdentities.make(in: folder)
        let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
        let fixture = try ResignedFixture(ipa, identity: identity, made: made, in: folder)
        let app = TamperedApp(signed: fixture.app)
        #expect(try app.allProblems() == [], "\(ipa) re-signed does not verify")
        return (app, made)
    }

    static let modified = CodeSealTamperTests.modified

    @Test func oneByteOfAResource() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signed(CodeSealTamperTests.test, in: folder).app
            let old = try app.data("Assets.car")
            try app.flipByte("Assets.car", at: 1000)
            #expect(try app.allProblems() == ["Test.app: Assets.car: \(Self.modified(old, try app.data("Assets.car")))"])
        }
    }

    @Test func anAddedAndARemovedFile() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signed(CodeSealTamperTests.test, in: folder).app
            try app.write("Base.lproj/extra.txt", Data("hello".utf8))
            try FileManager.default.removeItem(atPath: app.path("Assets.car"))
            #expect(try app.allProblems() == ["Test.app: Assets.car: missing", "Test.app: Base.lproj/extra.txt: added, not sealed"])
        }
    }

    @Test func anInfoPlistEdit() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signed(CodeSealTamperTests.test, in: folder).app
            let old = try app.data("Info.plist")
            var info = try #require(try PropertyList(data: old).value.dictionaryValue)
            info["CFBundleVersion"] = .string("5")
            let new = try PropertyList.encode(.dictionary(info), format: .binary)
            try app.write("Info.plist", new)
            #expect(try app.allProblems() == ["Test.app: Info.plist: \(Self.modified(old, new))"])
        }
    }

    @Test func oneByteOfTheTextSegment() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signed(CodeSealTamperTests.test, in: folder).app
            let slice = try #require(try MachOFile(data: try app.data("Test")).slices.first)
            let text = try #require(slice.segment(named: "__TEXT")?.sections.first { $0.name == "__text" })
            let offset = Int(text.fileOffset) + 10
            let directory = try #require(try slice.embeddedSignature()?.codeDirectory)
            try app.flipByte("Test", at: offset)
            let page = offset / directory.pageSize, start = page * directory.pageSize
            let range = "bytes 0x\(String(start, radix: 16))..<0x\(String(start + directory.pageSize, radix: 16))"
            #expect(try app.allProblems() == ["Test.app: Test: code page \(page) of \(directory.codeSlots.count) (\(range)) modified"])
        }
    }

    /// Page 0 holds the load commands the signer patched (LC_CODE_SIGNATURE, __LINKEDIT): it is hashed after.
    @Test func oneByteOfTheLoadCommands() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signed(CodeSealTamperTests.test, in: folder).app
            let slice = try #require(try MachOFile(data: try app.data("Test")).slices.first)
            let uuid = try #require(slice.loadCommands.first { $0.command == 0x1b }, "no LC_UUID")
            let directory = try #require(try slice.embeddedSignature()?.codeDirectory)
            try app.flipByte("Test", at: uuid.offset + 8)
            let range = "bytes 0x0..<0x\(String(directory.pageSize, radix: 16))"
            #expect(try app.allProblems() == ["Test.app: Test: code page 0 of \(directory.codeSlots.count) (\(range)) modified"])
        }
    }

    @Test func aSwappedProvisioningProfile() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signed(CodeSealTamperTests.test, in: folder).app
            let old = try app.data("embedded.mobileprovision")
            let new = try Data(contentsOf: Fixtures.url("mobileprovision", "app_info_ios_development.mobileprovision"))
            try app.write("embedded.mobileprovision", new)
            // The seal breaks, and the signer is not in the other profile (which only the installer judges).
            let problems = try app.allProblems()
            #expect(problems.contains("Test.app: embedded.mobileprovision: \(Self.modified(old, new))"), "\(problems)")
            let install = try app.installProblems()
            #expect(install.contains { $0.hasPrefix("Test.app: signer \"Apple Development: Test RSA (ABCDE12345)\"") }, "\(install)")
        }
    }

    @Test func aChangedFileInsideANestedAppex() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signed(CodeSealTamperTests.withAppex, in: folder).app
            let file = "PlugIns/Notification.appex/embedded.mobileprovision"
            let old = try app.data(file)
            try app.flipByte(file, at: 200)
            let change = Self.modified(old, try app.data(file))
            // Both seals break (the extension's and the app's over it); the profile's own signature too.
            let seals = try app.allProblems().filter { $0.contains(": modified (") }
            #expect(seals == ["Demo.app/PlugIns/Notification.appex: embedded.mobileprovision: \(change)", "Demo.app: \(file): \(change)"])
        }
    }

    /// The CMS of the same app signed by the EC identity put in place of ours: it is not over our
    /// CodeDirectory, and its signer is not in the embedded profile.
    @Test func aSwappedCMS() throws {
        try withTemporaryFolder { folder in
            let (app, made) = try Self.signed(CodeSealTamperTests.test, in: folder)
            let ec = try SigningIdentity(p12: made.ec, password: .file(made.passwordFile))
            let other = try ResignedFixture(CodeSealTamperTests.test, identity: ec, made: made, in: folder)
            let otherSignature = try #require(try MachOFile(contentsOf: other.app + "/Test").slices.first?.embeddedSignature())
            var bytes = try app.data("Test")
            let slice = try #require(try MachOFile(data: bytes).slices.first)
            let location = try #require(slice.codeSignature)
            let ours = try #require(try slice.embeddedSignature())
            let swapped = try ours.replacing(SignatureSlot.signature, with: try #require(otherSignature.signature).bytes()).bytes()
            try #require(swapped.count <= Int(location.dataSize))
            let start = Int(location.dataOffset)
            bytes.replaceSubrange(
                start..<start + Int(location.dataSize), with: swapped + Array(repeating: 0, count: Int(location.dataSize) - swapped.count))
            try app.write("Test", bytes)
            let problems = try app.allProblems()
            #expect(problems.first?.hasPrefix("Test.app: CMS signature does not verify over the CodeDirectory") == true, "\(problems)")
            #expect(try app.installProblems().contains { $0.contains("Test EC") }, "\(problems)")
            #expect(problems.allSatisfy { !$0.contains("\n") })
        }
    }
}

extension TamperedApp {
    /// An app folder already in place (a re-signed copy).
    init(signed app: String) { self.app = app }

    /// Every problem `codesign verify` prints: the seals' and the signatures' trust.
    func allProblems() throws -> [String] { try CodeSignatureVerifier().verify(path: app).report.problems.map(\.description) }
    /// What iOS's installer would refuse, the seal aside.
    func installProblems() throws -> [String] {
        try CodeSignatureVerifier().verify(path: app).report.installProblems.map(\.description)
    }
}
