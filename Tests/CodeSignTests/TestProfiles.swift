import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// A provisioning profile made for a test: a plist written here, put in a CMS envelope by
/// `openssl cms -sign -nodetach` with the test CA's key (nobody checks Apple's signature on a profile).
struct TestProfile {
    var name = "Test Development"
    var uuid = "0E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071"
    var applicationIdentifier = "ABCDE12345.*"
    var team = "ABCDE12345"
    var platforms = ["iOS"]
    var expires = Date().addingTimeInterval(365 * 86_400)
    var getTaskAllow = true
    var keychainAccessGroups = ["ABCDE12345.*", "com.apple.token"]
    /// Entitlements written after the ones above.
    var more: [(String, PlistValue)] = []
    /// The DER of each `DeveloperCertificates` entry.
    var certificates: [[UInt8]]

    /// The profile's `Entitlements`.
    var entitlements: PlistDictionary {
        PlistDictionary(
            [
                ("application-identifier", .string(applicationIdentifier)),
                ("keychain-access-groups", .array(keychainAccessGroups.map(PlistValue.string))),
                ("get-task-allow", .bool(getTaskAllow)),
                ("com.apple.developer.team-identifier", .string(team))
            ] + more)
    }

    var plist: PlistDictionary {
        PlistDictionary([
            ("AppIDName", .string("Test App")), ("CreationDate", .date(PlistDate(expires.addingTimeInterval(-400 * 86_400)))),
            ("DeveloperCertificates", .array(certificates.map { .data(Data($0)) })), ("Entitlements", .dictionary(entitlements)),
            ("ExpirationDate", .date(PlistDate(expires))), ("Name", .string(name)), ("Platform", .array(platforms.map(PlistValue.string))),
            ("ProvisionedDevices", .array([.string("00008101-000A1B2C3D4E5F60")])), ("TeamIdentifier", .array([.string(team)])),
            ("TeamName", .string("Test Team")), ("UUID", .string(uuid))
        ])
    }

    /// Writes the profile as `file` in the identities' folder, signed by their test CA, and returns its path.
    func write(_ file: String, with identities: TestIdentities) throws -> String {
        let plistFile = file + ".plist"
        _ = try identities.folder.write(plistFile, try XMLPlistWriter().write(.dictionary(plist)))
        try identities.run(
            "cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-in", plistFile, "-signer", "ca.crt", "-inkey", "ca.key",
            "-out", file)
        return identities.folder.path(file)
    }

    /// Every real profile: the `.mobileprovision` fixtures and those embedded in the fixture ipas, each
    /// with a name for messages; at least ten, or the fixtures are not what the tests expect.
    static func realProfiles() throws -> [(name: String, profile: ProvisioningProfile)] {
        var profiles: [(String, ProvisioningProfile)] = []
        for url in Fixtures.files(in: "mobileprovision") {
            profiles.append((url.lastPathComponent, try ProvisioningProfile(contentsOf: url.path)))
        }
        for url in Fixtures.files(in: "ipa") where url.pathExtension == "ipa" {
            let archive = try ZipArchiveReader(path: url.path)
            for entry in archive.entries where entry.name.hasSuffix("/embedded.mobileprovision") {
                profiles.append(("\(url.lastPathComponent): \(entry.name)", try ProvisioningProfile(data: try archive.data(entry))))
            }
        }
        guard profiles.count >= 10 else { throw SetupFailure("found \(profiles.count) real profiles, expected at least 10") }
        return profiles
    }

    /// The profile as the code under test reads it, from `file`.
    func read(_ file: String, with identities: TestIdentities) throws -> ProvisioningProfile {
        try ProvisioningProfile(contentsOf: write(file, with: identities))
    }
}
