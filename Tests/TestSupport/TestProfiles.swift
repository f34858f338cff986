import Foundation
import PlistKit

/// A provisioning profile made for a test: a plist written here, put in a CMS envelope by
/// `openssl cms -sign -nodetach` with the test CA's key (nobody checks Apple's signature on a profile).
public struct TestProfile {
    public var name = "Test Development"
    public var uuid = "0E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071"
    public var applicationIdentifier = "ABCDE12345.*"
    public var team = "ABCDE12345"
    public var platforms = ["iOS"]
    public var expires = Date().addingTimeInterval(365 * 86_400)
    public var getTaskAllow = true
    public var keychainAccessGroups = ["ABCDE12345.*", "com.apple.token"]
    /// Entitlements written after the ones above.
    public var more: [(String, PlistValue)] = []
    /// The DER of each `DeveloperCertificates` entry.
    public var certificates: [[UInt8]]

    /// The profile's `Entitlements`.
    public var entitlements: PlistDictionary {
        PlistDictionary(
            [
                ("application-identifier", .string(applicationIdentifier)),
                ("keychain-access-groups", .array(keychainAccessGroups.map(PlistValue.string))),
                ("get-task-allow", .bool(getTaskAllow)),
                ("com.apple.developer.team-identifier", .string(team))
            ] + more)
    }

    public var plist: PlistDictionary {
        PlistDictionary([
            ("AppIDName", .string("Test App")), ("CreationDate", .date(PlistDate(expires.addingTimeInterval(-400 * 86_400)))),
            ("DeveloperCertificates", .array(certificates.map { .data(Data($0)) })), ("Entitlements", .dictionary(entitlements)),
            ("ExpirationDate", .date(PlistDate(expires))), ("Name", .string(name)), ("Platform", .array(platforms.map(PlistValue.string))),
            ("ProvisionedDevices", .array([.string("00008101-000A1B2C3D4E5F60")])), ("TeamIdentifier", .array([.string(team)])),
            ("TeamName", .string("Test Team")), ("UUID", .string(uuid))
        ])
    }

    /// Writes the profile as `file` in the identities' folder, signed by their test CA, and returns its path.
    public func write(_ file: String, with identities: TestIdentities) throws -> String {
        let plistFile = file + ".plist"
        _ = try identities.folder.write(plistFile, try XMLPlistWriter().write(.dictionary(plist)))
        try identities.run(
            "cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-in", plistFile, "-signer", "ca.crt", "-inkey", "ca.key",
            "-out", file)
        return identities.folder.path(file)
    }

    public init(certificates: [[UInt8]]) { self.certificates = certificates }
}
