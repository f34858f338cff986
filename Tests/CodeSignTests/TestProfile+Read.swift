import IPAKit
import TestSupport

extension TestProfile {
    /// The profile as the code under test reads it, from `file`.
    func read(_ file: String, with identities: TestIdentities) throws -> ProvisioningProfile {
        try ProvisioningProfile(contentsOf: write(file, with: identities))
    }
}
