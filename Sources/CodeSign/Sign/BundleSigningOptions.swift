import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// A provisioning profile to embed, with the file it was read from.
public struct ProfileFile: Sendable {
    public var path: String
    public var bytes: Data
    public var profile: ProvisioningProfile

    /// Reads the profile at `path` with `limits`; errors are one line naming it.
    public init(path: String, limits: PlistLimits = .default) throws {
        self.path = path
        let bytes = try FileIO.read(path, limit: InputLimits.provisioningProfile)
        self.bytes = bytes
        profile = try inFile(path, only: IPAProblem.self) { try ProvisioningProfile(data: bytes, limits: limits) }
    }
}

/// What a bundle tree is signed with: the identity, the profile for each bundle, the app's
/// entitlements when given, and the rules of the resource seal.
public struct BundleSigningOptions: Sendable {
    /// The signer, or nil for an ad-hoc signature (no profile, no CMS signer).
    public var identity: SigningIdentity?
    /// The app's profile: used for the outermost bundle when no profile names its bundle id.
    public var appProfile: ProfileFile?
    /// Profiles by the bundle id they sign (extensions, watch apps, the app).
    public var profiles: [String: ProfileFile]
    /// The app's entitlements (`--entitlements`) instead of those derived from its profile.
    public var entitlements: PlistDictionary?
    /// The file ``entitlements`` were read from, which a refusal of them names.
    public var entitlementsFile: String?
    /// The time the signatures carry, and that expiry is judged against.
    public var now: Date
    /// The rules CodeResources is written with: Xcode 12's, as Apple's tools write them for iOS today.
    public var generation: ResourceRuleGeneration
    /// The limits the bundles' plists (Info.plist, profiles, entitlements) are read with.
    public var limits: PlistLimits = .default

    public init(
        identity: SigningIdentity?, appProfile: ProfileFile? = nil, profiles: [String: ProfileFile] = [:],
        entitlements: PlistDictionary? = nil, now: Date = Date(), generation: ResourceRuleGeneration = .xcode12
    ) {
        self.identity = identity
        self.appProfile = appProfile
        self.profiles = profiles
        self.entitlements = entitlements
        self.now = now
        self.generation = generation
    }

    /// The signer's name as messages show it: the certificate's common name, or "ad hoc".
    public var signerName: String { identity.map { "\"\($0.certificate.displayName)\"" } ?? "ad hoc" }

    /// The profile for the bundle `identifier` (the outermost app when `isOutermost`), if one was given:
    /// its own, else the app's when that is the outermost bundle or the app's App ID covers it (a
    /// wildcard profile signs the extensions too).
    public func profile(for identifier: String, isOutermost: Bool) -> ProfileFile? {
        if let own = profiles[identifier] { return own }
        guard let appProfile, isOutermost || appProfile.profile.matches(bundleIdentifier: identifier) else { return nil }
        return appProfile
    }
}

/// What a signing wrote: each piece of code signed, inside out, and who signed it.
public struct BundleSigningReport: Sendable {
    /// One signed piece of code: its path in the bundle, identifier and cdhash (hex).
    public struct Item: Sendable, Equatable {
        public var path: String
        public var identifier: String
        public var cdhash: String
        /// The profile embedded in it, if one was written.
        public var profile: String?
    }

    /// Every piece of code signed, nested ones first, the outermost bundle last.
    public var items: [Item]
    /// The signing certificate's common name, or nil for an ad-hoc signature.
    public var signer: String?
    /// The team id the signatures carry.
    public var teamID: String?
    /// What the caller should hear about what signing did besides signing (one line each).
    public var warnings: [Diagnostic] = []

    /// The same report with the outermost bundle's folder called `name` (a copy signed under a temporary name).
    public func naming(_ name: String) -> BundleSigningReport {
        var copy = self
        guard let old = items.last?.path else { return copy }
        copy.items = items.map { item in
            var renamed = item
            if renamed.path == old || renamed.path.hasPrefix(old + "/") { renamed.path = name + renamed.path.dropFirst(old.count) }
            return renamed
        }
        return copy
    }

    /// The cdhash of the outermost bundle's executable.
    public var cdhash: String { items.last?.cdhash ?? "" }
}
