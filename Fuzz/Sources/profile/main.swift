import Foundation
import FuzzDriver
import IPAKit

runFuzzer { data in
    if let profile = try? ProvisioningProfile(data: data) {
        _ = profile.summary()
        _ = profile.kind
    }
}
