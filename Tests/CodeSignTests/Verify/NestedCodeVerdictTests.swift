import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Issue 30: test bundles (`PlugIns/*.xctest`) and XPC services (`*.xpc`) are nested code, signed
/// and verified like the rest; and what only the installer refuses is not a broken seal.
@Suite(Fixtures.enabled) struct NestedCodeVerdictTests {
    /// The Demo fixture with its extension copied as `PlugIns/DemoTests.xctest` and `XPCServices/Helper.xpc`,
    /// signed with the test RSA identity.
    static func signedWithTestBundles(in folder: TemporaryFolder) throws -> String {
        let made = try TestIdentities.make(in: folder)
        let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
        let app = try ResignedFixture.unpack("app_info_embedded_enterprise-appex.ipa", to: folder.path("demo"))
        let appex = app + "/PlugIns/Notification.appex"
        try FileManager.default.copyItem(atPath: appex, toPath: app + "/PlugIns/DemoTests.xctest")
        try FileManager.default.createDirectory(atPath: app + "/XPCServices", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: appex, toPath: app + "/XPCServices/Helper.xpc")
        let profile = try ProfileFile(
            path: try TestProfile(certificates: [identity.certificate.der]).write("test.mobileprovision", with: made))
        let identifier = try #require(try ResignedFixture.info(appex)["CFBundleIdentifier"]?.stringValue)
        _ = try BundleSigner.sign(
            bundle: app, options: BundleSigningOptions(identity: identity, appProfile: profile, profiles: [identifier: profile]))
        return app
    }

    @Test func xctestAndXPCBundlesAreSignedAndVerifiedAsNestedCode() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedWithTestBundles(in: folder)
            let report = try CodeSignatureVerifier().verify(path: app).report
            #expect(report.isValid, "\(report.problems.map(\.description))")
            let kinds = Dictionary(uniqueKeysWithValues: report.items.map { (($0.path as NSString).lastPathComponent, $0.kind) })
            #expect(kinds["DemoTests.xctest"] == .xctest)
            #expect(kinds["Helper.xpc"] == .xpc)
            #expect(report.items.allSatisfy { $0.status == .signed })
            // A changed code page in the test bundle is its own problem, and the app's seal over its file too.
            let executable = app + "/PlugIns/DemoTests.xctest/Notification"
            var bytes = try Data(contentsOf: URL(fileURLWithPath: executable))
            bytes[100] ^= 0xff
            try bytes.write(to: URL(fileURLWithPath: executable))
            let broken = try CodeSignatureVerifier().verify(path: app).report
            let test = try #require(broken.items.first { $0.kind == .xctest })
            #expect(!test.sealIsValid)
            #expect(test.problems.contains { $0.message.contains("code page 0 ") }, "\(test.problems)")
            #expect(test.problems.map(\.kind).contains(.pageModified), "\(test.problems)")
            #expect(broken.items.last?.sealIsValid == false)
        }
    }

    /// An application-identifier left as the profile's wildcard (`ABCDE12345.*`, not resolved to the
    /// bundle id) will not install, but the signature over it is intact: an install line, not a seal
    /// problem.
    @Test func anUnresolvedWildcardApplicationIdentifierIsAnInstallProblemNotABrokenSeal() throws {
        let item = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        var entitlements = try #require(try item.signature.entitlements?.entitlements().dictionaryValue)
        entitlements["application-identifier"] = .string("GC6FQHF5NF.*")
        // The trust checks read the blobs; the special slots that bind them are the seal verifier's.
        let unresolved = try item.signature.replacing(
            SignatureSlot.entitlements, with: try EntitlementsBlob.xml(.dictionary(entitlements)).bytes()
        )
        .replacing(SignatureSlot.derEntitlements, with: try EntitlementsBlob.der(.dictionary(entitlements)).bytes())
        let report = item.evaluate(signature: unresolved)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(
            report.installProblems.contains {
                $0.kind == .entitlementsNotGranted
                    && $0.message.hasPrefix(
                        "entitlement application-identifier is GC6FQHF5NF.*, the profile's is GC6FQHF5NF.com.ineva.test-rtmp.Test")
            }, "\(report.installProblems)")
    }
}
