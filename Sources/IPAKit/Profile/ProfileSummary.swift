import Foundation
import PlistKit

extension ProvisioningProfile {
    /// The facts `profile show` and `inspect` print, as an ordered dictionary (for text or JSON).
    /// `profileSignature` is the result of checking the profile's own CMS signature (done where the
    /// signature checks live, in AdhocBuildKit), e.g. `verifies, signed by …`; nil leaves it out.
    public func summary(now: Date = Date(), profileSignature: String? = nil) -> PlistDictionary {
        var dict = PlistDictionary()
        dict["name"] = .string(name)
        dict["type"] = .string(kind.rawValue)
        dict["uuid"] = .string(uuid)
        dict["team"] = .string(teamName.isEmpty ? teamIdentifier : "\(teamName) (\(teamIdentifier))")
        dict["appID"] = .string(applicationIdentifier ?? "")
        if !platforms.isEmpty { dict["platforms"] = .array(platforms.map { .string($0) }) }
        if let creationDate { dict["created"] = .date(PlistDate(creationDate)) }
        if let expirationDate {
            dict["expires"] = .date(PlistDate(expirationDate))
            dict["expired"] = .bool(expirationDate <= now)
            dict["daysLeft"] = .integer(PlistInteger(max(daysUntilExpiry(from: now) ?? 0, 0)))
        }
        dict["devices"] = provisionsAllDevices ? .string("all (enterprise)") : .integer(PlistInteger(devices.count))
        // Every entitlement the profile grants, in its order (it listed three of a profile's 26).
        dict["entitlements"] = .dictionary(entitlements)
        dict["xcodeManaged"] = .bool(isXcodeManaged)
        dict["certificates"] = .array(developerCertificates.map { .string($0.name) })
        dict["signedBy"] = .array(signers.map { .string($0) })
        if let profileSignature { dict["profileSignature"] = .string(profileSignature) }
        return dict
    }
}
