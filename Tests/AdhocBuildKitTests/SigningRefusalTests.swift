import AdhocBuildKit
import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Each reason not to sign, through ``AppSigning/sign(_:output:options:)`` as `codesign sign` calls it:
/// one line naming the file at fault, no output, no temporary folder left, the input as it was.
@Suite(Fixtures.enabled) struct SigningRefusalTests {
    static let test = "ipa-server_Test_dev-xcode12.ipa"
    static let withAppex = "app_info_embedded_enterprise-appex.ipa"

    /// A refusal's setting: test identities, a fixture unpacked as a `.app` folder, and where output goes.
    struct Setting {
        let folder: TemporaryFolder
        let made: TestIdentities
        /// The unpacked `.app` (`<temp>/in/Payload/Test.app`).
        let app: String
        let output: String

        init(_ ipa: String, in folder: TemporaryFolder) throws {
            self.folder = folder
            made = try TestIdentities.make(in: folder)
            try ZipArchiveReader(path: Fixtures.url("ipa", ipa).path).extract(to: folder.path("in"))
            let apps = try FileManager.default.contentsOfDirectory(atPath: folder.path("in/Payload")).filter { $0.hasSuffix(".app") }
            app = folder.path("in/Payload/" + apps[0])
            try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: false)
            output = folder.path("out/signed.ipa")
        }

        /// A profile for the RSA identity (or `spec` as given), written to the folder.
        func profile(_ change: (inout TestProfile) -> Void = { _ in }) throws -> String {
            var spec = TestProfile(certificates: [try certificate(made.rsa)])
            change(&spec)
            return try spec.write("profile-\(UUID().uuidString).mobileprovision", with: made)
        }

        func certificate(_ p12: String) throws -> [UInt8] {
            try SigningIdentity(p12: p12, password: .file(made.passwordFile)).certificate.der
        }

        func request(identity: String? = nil, password: String? = nil, profile: String?, entitlements: String? = nil) throws
            -> SigningRequest
        {
            let passwordFile = try password.map { try folder.write("password-\(UUID().uuidString)", $0) } ?? made.passwordFile
            return SigningRequest(
                identity: identity ?? made.rsa, password: .file(passwordFile), appProfile: profile, entitlements: entitlements)
        }

        /// Every file under `path` with its SHA-256, to show that a refusal changed nothing.
        static func hashes(_ path: String) -> [String: [UInt8]] {
            if FileIO.kind(of: path) == .file { return ["": Digest.sha256(FileManager.default.contents(atPath: path) ?? Data())] }
            var out: [String: [UInt8]] = [:]
            let walker = FileManager.default.enumerator(atPath: path)
            while let relative = walker?.nextObject() as? String {
                if let data = FileManager.default.contents(atPath: path + "/" + relative) { out[relative] = Digest.sha256(data) }
            }
            return out
        }

        /// Signs `input` with `request` into `output` (nil: in place) and returns the refusal's line,
        /// after checking that nothing was written and the input is as it was.
        func refusal(
            _ request: SigningRequest, input: String? = nil, output: String?? = .none, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> String {
            let input = input ?? app
            let target = output ?? self.output
            let before = Self.hashes(input)
            #expect(!before.isEmpty, sourceLocation: sourceLocation)
            var line = ""
            do {
                _ = try AppSigning.sign(input, output: target, options: try request.options())
                Issue.record("signed, not refused", sourceLocation: sourceLocation)
            } catch let error as Diagnostic {
                line = error.report
            }
            #expect(!line.contains("\n"), "\(line)", sourceLocation: sourceLocation)
            #expect(!line.contains(Fixtures.packageRoot.path + "/.build"), sourceLocation: sourceLocation)
            if let target { #expect(FileIO.kind(of: target) == nil, "\(target) was written", sourceLocation: sourceLocation) }
            for place in [folder.path("out"), (input as NSString).deletingLastPathComponent] {
                let left = ((try? FileManager.default.contentsOfDirectory(atPath: place)) ?? []).filter {
                    $0.hasPrefix(FileIO.temporaryPrefix)
                }
                #expect(left.isEmpty, "temporary files left in \(place): \(left)", sourceLocation: sourceLocation)
            }
            #expect(Self.hashes(input) == before, "the input changed", sourceLocation: sourceLocation)
            return line
        }
    }

    @Test func aWrongPasswordNamesTheP12() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let line = try setting.refusal(try setting.request(password: "not-it", profile: try setting.profile()))
            #expect(line.hasPrefix(setting.made.rsa + ": "), "\(line)")
            #expect(line.lowercased().contains("password"), "\(line)")
            #expect(!line.contains("not-it") && !line.contains(TestIdentities.password), "\(line)")
        }
    }

    @Test func aKeyThatIsNotTheCertificatesNamesTheP12() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let line = try setting.refusal(try setting.request(identity: setting.made.mismatched, profile: try setting.profile()))
            #expect(line.hasPrefix(setting.made.mismatched + ": "), "\(line)")
            // SigningIdentity finds no certificate for the key before the preflight would say it does not match.
            #expect(line.contains("no certificate matching its private key"), "\(line)")
        }
    }

    @Test func aProfileWithoutTheCertificateNamesTheProfile() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let ec = try setting.certificate(setting.made.ec)
            let profile = try setting.profile { $0.certificates = [ec] }
            let line = try setting.refusal(try setting.request(profile: profile))
            #expect(line.hasPrefix(profile + ": ") && line.contains("does not list the certificate"), "\(line)")
        }
    }

    @Test func anExpiredProfileNamesTheProfile() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let profile = try setting.profile { $0.expires = Date().addingTimeInterval(-86_400) }
            let line = try setting.refusal(try setting.request(profile: profile))
            #expect(line.hasPrefix(profile + ": ") && line.contains("expired on"), "\(line)")
        }
    }

    @Test func aProfileForAnotherAppIDNamesTheProfile() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let profile = try setting.profile { $0.applicationIdentifier = "ABCDE12345.com.example.other" }
            let line = try setting.refusal(try setting.request(profile: profile))
            #expect(line.hasPrefix(profile + ": ") && line.contains("does not cover the bundle id com.ineva.test-rtmp.Test"), "\(line)")
        }
    }

    @Test func aProfileForAnotherPlatformNamesTheExecutableAndTheProfile() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let profile = try setting.profile { $0.platforms = ["tvOS"] }
            let line = try setting.refusal(try setting.request(profile: profile))
            #expect(
                line.hasPrefix(setting.app + "/Test: slice arm64: is built for ios, but the profile \(profile) is for tvOS"), "\(line)")
        }
    }

    /// An app profile for the app's id alone does not cover the extension: it keeps its own (enterprise)
    /// profile when none is given for it, which does not list the test certificate; without one at all,
    /// the refusal says how to give one.
    @Test func anExtensionWithoutAProfileForTheIdentityIsRefused() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.withAppex, in: folder)
            let request = try setting.request(
                profile: try setting.profile { $0.applicationIdentifier = "ABCDE12345.com.icyleaf.test.Demo" })
            let kept = try setting.refusal(request)
            #expect(
                kept.hasPrefix(setting.app + "/PlugIns/Notification.appex/embedded.mobileprovision: ")
                    && kept.contains("does not list the certificate")
                    && kept.hasSuffix(
                        " (no profile was given for com.icyleaf.test.Demo.Notification, so the one it holds was checked; give one as "
                            + "com.icyleaf.test.Demo.Notification=FILE (codesign sign --profile, release --sign-profile))"),
                "\(kept)")
            try FileManager.default.removeItem(atPath: setting.app + "/PlugIns/Notification.appex/embedded.mobileprovision")
            let none = try setting.refusal(request)
            #expect(
                none
                    == setting.app
                    + "/PlugIns/Notification.appex: has no provisioning profile for com.icyleaf.test.Demo.Notification; give one as com.icyleaf.test.Demo.Notification=FILE (codesign sign --profile, release --sign-profile)"
            )
        }
    }

    /// A profile given for an id no bundle has (a typo, or the id before an environment changed it).
    @Test func aProfileForABundleIdTheAppDoesNotHaveIsRefused() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.withAppex, in: folder)
            let stray = try setting.profile()
            var request = try setting.request(profile: try setting.profile())
            request.profiles = ["com.icyleaf.test.Demo.Notificaton": stray]
            let line = try setting.refusal(request)
            #expect(
                line
                    == "\(stray): is given for com.icyleaf.test.Demo.Notificaton, which no bundle of the app has (its bundle ids: com.icyleaf.test.Demo, com.icyleaf.test.Demo.Notification)",
                "\(line)")
        }
    }

    /// A wildcard profile for the app covers its extension too: both are signed with it.
    @Test func aWildcardAppProfileSignsTheExtensionToo() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.withAppex, in: folder)
            try FileManager.default.removeItem(atPath: setting.app + "/PlugIns/Notification.appex/embedded.mobileprovision")
            let report = try AppSigning.sign(
                setting.app, output: setting.output, options: try setting.request(profile: try setting.profile()).options())
            #expect(report.items.map(\.identifier) == ["com.icyleaf.test.Demo.Notification", "com.icyleaf.test.Demo"])
            #expect(try CodeSignatureVerifier().verify(path: setting.output).report.isValid)
        }
    }

    @Test func anEncryptedBinaryNamesTheExecutable() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let executable = setting.app + "/Test"
            var bytes = try Data(contentsOf: URL(fileURLWithPath: executable))
            let slice = try #require(try MachOFile(data: bytes).slices.first)
            let command = try #require(slice.loadCommands.first { $0.command == LoadCommandType.encryptionInfo64 })
            // cryptid: after cmd, cmdsize, cryptoff and cryptsize; in the load commands, which the old signature seals.
            let cryptID = Int(slice.fileOffset) + command.offset + 16
            #expect(cryptID < Int(try #require(slice.codeSignature).dataOffset))
            #expect(bytes[cryptID] == 0)
            bytes[cryptID] = 1
            try bytes.write(to: URL(fileURLWithPath: executable))
            #expect(try MachOFile(data: bytes).slices.first?.encryption?.isEncrypted == true)
            let line = try setting.refusal(try setting.request(profile: try setting.profile()))
            #expect(line.hasPrefix(setting.app + "/Test: slice arm64: is encrypted"), "\(line)")
        }
    }

    @Test func entitlementsTheProfileDoesNotGrantNameTheEntitlementsFile() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let entitlements = PlistDictionary([
                ("application-identifier", .string("ABCDE12345.com.ineva.test-rtmp.Test")),
                ("com.apple.developer.icloud-services", .array([.string("CloudKit")]))
            ])
            let file = try folder.write("extra.entitlements", try XMLPlistWriter().write(.dictionary(entitlements)))
            let line = try setting.refusal(try setting.request(profile: try setting.profile(), entitlements: file))
            #expect(line.hasPrefix(file + ": ") && line.contains("com.apple.developer.icloud-services"), "\(line)")
        }
    }

    @Test func anIPARefusedLeavesItAndTheOutputFolderAsTheyWere() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let ipa = folder.path("copy.ipa")
            try FileManager.default.copyItem(atPath: Fixtures.url("ipa", Self.test).path, toPath: ipa)
            let profile = try setting.profile { $0.platforms = ["tvOS"] }
            let line = try setting.refusal(try setting.request(profile: profile), input: ipa)
            #expect(
                line.hasPrefix("\(ipa): Payload/Test.app/Test: slice arm64: is built for ios, but the profile \(profile) is for tvOS"),
                "\(line)")
        }
    }

    @Test func anIPAIsNotSignedIntoAFolder() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let ipa = folder.path("copy.ipa")
            try FileManager.default.copyItem(atPath: Fixtures.url("ipa", Self.test).path, toPath: ipa)
            let output = folder.path("out/Signed.app")
            let line = try setting.refusal(try setting.request(profile: try setting.profile()), input: ipa, output: output)
            #expect(line == "\(output): an .ipa is signed into an .ipa; name the output something.ipa")
        }
    }

    @Test func anIPARefusedInPlaceIsUnchangedAndSignedInPlaceVerifies() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let ipa = folder.path("in-place.ipa")
            try FileManager.default.copyItem(atPath: Fixtures.url("ipa", Self.test).path, toPath: ipa)
            let expired = try setting.profile { $0.expires = Date().addingTimeInterval(-86_400) }
            let line = try setting.refusal(try setting.request(profile: expired), input: ipa, output: .some(nil))
            #expect(line.hasPrefix(expired + ": "), "\(line)")
            _ = try AppSigning.sign(ipa, options: try setting.request(profile: try setting.profile()).options())
            #expect(try CodeSignatureVerifier().verify(path: ipa).report.isValid)
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(FileIO.temporaryPrefix) }
            #expect(left.isEmpty)
        }
    }

    /// The output's folder is made when it is missing, and made no more when signing is refused.
    @Test func anOutputInAMissingFolderIsMadeUnlessSigningIsRefused() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let output = folder.path("missing/deeper/signed.ipa")
            let expired = try setting.profile { $0.expires = Date().addingTimeInterval(-86_400) }
            let line = try setting.refusal(try setting.request(profile: expired), output: output)
            #expect(line.hasPrefix(expired + ": "), "\(line)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("missing")))
            _ = try AppSigning.sign(setting.app, output: output, options: try setting.request(profile: try setting.profile()).options())
            #expect(try CodeSignatureVerifier().verify(path: output).report.isValid)
        }
    }

    /// Inputs that cannot be read: each refusal names the file given.
    @Test func unreadableIdentityProfileAndEntitlementsNameTheirFiles() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let garbage = try folder.write("garbage.bin", "not a p12, a profile or a plist")
            let missing = folder.path("missing.p12")
            let lines = [
                try setting.refusal(try setting.request(identity: missing, profile: try setting.profile())),
                try setting.refusal(try setting.request(identity: garbage, profile: try setting.profile())),
                try setting.refusal(try setting.request(profile: garbage)),
                try setting.refusal(try setting.request(profile: folder.path("missing.mobileprovision"))),
                try setting.refusal(try setting.request(profile: try setting.profile(), entitlements: garbage))
            ]
            #expect(lines[0].hasPrefix(missing + ": "), "\(lines[0])")
            #expect(lines[3].hasPrefix(folder.path("missing.mobileprovision") + ": "), "\(lines[3])")
            for line in [lines[1], lines[2], lines[4]] { #expect(line.hasPrefix(garbage + ": "), "\(line)") }
        }
    }

    @Test func anAppRefusedInPlaceIsUnchanged() throws {
        try withTemporaryFolder { folder in
            let setting = try Setting(Self.test, in: folder)
            let profile = try setting.profile { $0.expires = Date().addingTimeInterval(-86_400) }
            let line = try setting.refusal(try setting.request(profile: profile), output: .some(nil))
            #expect(line.hasPrefix(profile + ": "), "\(line)")
            // And signed in place with a good profile, it verifies.
            _ = try AppSigning.sign(setting.app, options: try setting.request(profile: try setting.profile()).options())
            #expect(try CodeSignatureVerifier().verify(path: setting.app).report.isValid)
        }
    }
}

/// What ``AppSigning`` accepts, signed all the way: an .xcarchive into an .ipa and into an .xcarchive,
/// the archive as it was, nothing temporary left.
@Suite(Fixtures.enabled) struct AppSigningArchiveTests {
    @Test(arguments: ["Signed.ipa", "Signed.xcarchive"]) func anArchiveIsSignedIntoAnIPAOrAnArchive(output name: String) throws {
        try withTemporaryFolder { folder in
            let setting = try SigningRefusalTests.Setting(SigningRefusalTests.test, in: folder)
            let archive = folder.path("Test.xcarchive")
            try FileManager.default.createDirectory(atPath: archive + "/Products/Applications", withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: setting.app, toPath: archive + "/Products/Applications/Test.app")
            _ = try folder.write(
                "Test.xcarchive/Info.plist", try XMLPlistWriter().write(.dictionary(PlistDictionary([("Name", .string("Test"))]))))
            let before = SigningRefusalTests.Setting.hashes(archive)
            let output = folder.path("out/" + name)
            let report = try AppSigning.sign(
                archive, output: output, options: try setting.request(profile: try setting.profile()).options())
            #expect(report.items.map(\.path) == ["Test.app"])
            #expect(report.teamID == "ABCDE12345")
            let result = try CodeSignatureVerifier().verify(path: output)
            #expect(result.report.isValid, "\(result.report.problems.map(\.description))")
            #expect(result.report.items.first?.teamID == "ABCDE12345")
            #expect(SigningRefusalTests.Setting.hashes(archive) == before)
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path("out")).filter {
                $0.hasPrefix(FileIO.temporaryPrefix)
            }
            #expect(left.isEmpty)
        }
    }
}
