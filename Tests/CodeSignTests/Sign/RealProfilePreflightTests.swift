import CodeSign
import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// The preflight against Apple's real profiles: their certificates read as DER, and a test identity refused
/// because no real profile lists it.
@Suite(Fixtures.enabled) struct RealProfilePreflightTests {
    @Test func everyDeveloperCertificateIsDERWhoseCommonNameTheProfileReports() throws {
        for (name, profile) in try TestProfile.realProfiles() {
            let certificates = try profile.developerCertificateData.map { try CertificateInfo(der: $0) }
            #expect(!certificates.isEmpty, "\(name)")
            #expect(certificates.map { $0.commonName ?? "?" } == profile.developerCertificates.map(\.name), "\(name)")
            #expect(certificates.map(\.notAfter) == profile.developerCertificates.map(\.expires), "\(name)")
        }
    }

    @Test func anIdentityTheProfileDoesNotListIsRefusedNamingTheProfile() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            for (name, profile) in try TestProfile.realProfiles() {
                let refused = expectCodeSign(.certificateNotInProfile, "\(name)") {
                    try SigningPreflight.check(
                        identity: identity, profile: profile, profilePath: name, bundleIdentifier: "com.example.app",
                        bundlePath: "Payload/Test.app", entitlements: nil, slices: [], executablePath: "Payload/Test.app/Test", now: Date())
                }
                let error = try #require(refused, "\(name)")
                #expect(error.file == name)
                #expect(error.message.contains("\"\(profile.name)\" (\(profile.uuid))"), "\(name): \(error.message)")
            }
        }
    }
}
