import CodeSign
import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// scripts/make-demo-identity.sh: the p12 loads as a signing identity issued by the demo CA, and each
/// profile verifies, is for its bundle in team DEMO123456, and names that identity's certificate.
@Suite struct DemoIdentityTests {
    @Test func theDemoIdentityLoadsAndBothProfilesNameItsCertificate() throws {
        try #require(ProcessResult.which("openssl") != nil, "openssl is needed to make the demo identity")
        try withTemporaryFolder { folder in
            let script = Fixtures.packageRoot.appendingPathComponent("scripts/make-demo-identity.sh").path
            let out = folder.path("demo")
            var environment = ProcessInfo.processInfo.environment
            environment["ADHOCBUILD_DEMO_PASSWORD"] = "not the default"
            let made = try ProcessResult.run("/bin/bash", [script, out], environment: environment)
            guard made.status == 0 else { throw SetupFailure("make-demo-identity.sh failed: \(made.stderrText)") }

            let password = try folder.write("password.txt", "not the default\n")
            let identity = try SigningIdentity(p12: out + "/demo.p12", password: .file(password), chainPEM: out + "/demo-ca.pem")
            #expect(identity.certificate.commonName == "Apple Development: Demo Signer (DEMO123456)")
            #expect(identity.certificate.organizationalUnit == "DEMO123456" && identity.certificate.organization == "Demo Team")
            #expect(identity.keyMatchesCertificate)
            #expect(identity.chain.contains { $0.commonName == "Demo Root CA" }, "\(identity.chain.map(\.subject))")
            // The password is the one in the environment, not the default.
            let demo = try folder.write("demo-password.txt", "demo\n")
            #expect(throws: (any Error).self) { try SigningIdentity(p12: out + "/demo.p12", password: .file(demo)) }

            for (file, bundle) in [("ShoutOut", "com.example.shoutout"), ("ShoutOutShare", "com.example.shoutout.share")] {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(file).mobileprovision"))
                let signature = try ProfileSignature(bytes: [UInt8](bytes))
                #expect(signature.verificationFailure == nil, "\(file)")
                #expect(signature.signer?.commonName == "Demo Root CA", "\(file)")
                #expect(signature.developerCertificates == [identity.certificate.der], "\(file)")
                let profile = try ProvisioningProfile(data: bytes)
                #expect(profile.applicationIdentifier == "DEMO123456." + bundle)
                #expect(profile.teamIdentifier == "DEMO123456" && profile.platforms == ["iOS"] && profile.devices.count == 3)
                #expect(profile.kind == .development && profile.getTaskAllow, "\(file): \(profile.kind)")
                #expect(profile.entitlements["keychain-access-groups"] == .array(["DEMO123456.*"]))
                #expect(profile.entitlements["com.apple.developer.team-identifier"] == "DEMO123456")
                let days = (profile.expirationDate ?? .distantPast).timeIntervalSince(profile.creationDate ?? .distantFuture) / 86_400
                #expect(days == 90, "\(file)")
            }
        }
    }
}
