import Foundation
import IPAKit
import TestSupport
import Testing

extension TestProfile {
    /// The profile as the code under test reads it, from `file`.
    func read(_ file: String, with identities: TestIdentities) throws -> ProvisioningProfile {
        try ProvisioningProfile(contentsOf: write(file, with: identities))
    }
}

extension TestProfile {
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
}
