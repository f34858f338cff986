import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// The checks made before a bundle is signed, so that nothing is written that a device would refuse.
///
/// ``check(identity:profile:profilePath:bundleIdentifier:bundlePath:entitlements:entitlementsPath:slices:executablePath:now:)``
/// throws the first refusal, one line naming the file it is about, in this order:
/// 1. the identity's key is not its certificate's, or the certificate is outside its validity at `now`;
/// 2. the profile does not list the identity's certificate (by DER) among its `DeveloperCertificates`,
///    is of another team than the certificate, has expired, or its App ID does not cover the bundle id;
/// 3. a slice of the executable is encrypted (App Store DRM), is built for a platform no device runs
///    (macOS, Mac Catalyst, a simulator), or for a platform the profile's `Platform` does not name;
/// 4. the given entitlements are refused by ``EntitlementsPolicy`` against the profile (the first problem).
///
/// A bundle signed without a profile (a framework, a dylib) gets the identity and slice checks, and its
/// entitlements, if any, only the application-identifier check against the bundle id.
public enum SigningPreflight {
    /// Throws a ``Diagnostic`` for the first reason not to sign the bundle at `bundlePath`.
    ///
    /// - Parameters:
    ///   - profile: the profile to embed, read from `profilePath` (named in its messages; `bundlePath` when nil).
    ///   - entitlements: the entitlements to sign with when the user gave them (`--entitlements`), read from
    ///     `entitlementsPath`; nil when they are derived by ``ProfileEntitlements``, which the policy allows.
    ///   - slices: the slices of the bundle's executable at `executablePath`.
    ///   - now: the time certificates and profiles are judged at.
    public static func check(
        identity: SigningIdentity, profile: ProvisioningProfile?, profilePath: String?, bundleIdentifier: String, bundlePath: String,
        entitlements: PlistDictionary?, entitlementsPath: String? = nil, slices: [MachOSlice], executablePath: String, now: Date
    ) throws {
        try checkIdentity(identity, now: now)
        if let profile {
            try checkProfile(
                profile, file: profilePath ?? bundlePath, certificate: identity.certificate, bundleIdentifier: bundleIdentifier, now: now)
        }
        for slice in slices {
            if let problem = sliceProblem(slice, profile: profile, profileFile: profilePath ?? bundlePath) {
                throw Diagnostic.codeSign(.sliceNotSignable, problem, file: executablePath, location: "slice \(slice.cpu)")
            }
        }
        if let entitlements {
            let problems =
                profile.map {
                    EntitlementsPolicy.problems(signed: entitlements, granted: $0.entitlements, bundleIdentifier: bundleIdentifier)
                } ?? EntitlementsPolicy.bundleIdentifierProblems(signed: entitlements, bundleIdentifier: bundleIdentifier)
            if let first = problems.first {
                let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
                throw Diagnostic.codeSign(.entitlementsNotGranted, "\(first)\(more)", file: entitlementsPath ?? bundlePath)
            }
        }
    }

    /// The checks that need no bundle, made when the signing options are read: the identity's (its key
    /// and validity), then each profile's against its certificate (``checkProfileFits(_:file:certificate:now:)``).
    /// A release runs them before it copies anything; signing each bundle runs them again.
    public static func checkBeforeBundles(identity: SigningIdentity, profiles: [ProfileFile], now: Date) throws {
        try checkIdentity(identity, now: now)
        for profile in profiles {
            try checkProfileFits(profile.profile, file: profile.path, certificate: identity.certificate, now: now)
        }
    }

    static func checkIdentity(_ identity: SigningIdentity, now: Date) throws {
        let certificate = identity.certificate
        guard identity.keyMatchesCertificate else {
            throw Diagnostic.codeSign(
                .identityInvalid, "the private key does not match the certificate \(certificate.displayName)", file: identity.file)
        }
        if let end = certificate.notAfter, now > end {
            throw Diagnostic.codeSign(
                .expired,
                "the certificate \(certificate.displayName) expired on \(SignatureTrustVerifier.day(end))", file: identity.file,
                hint: "renew it in the Apple Developer portal and export the new identity")
        }
        if let start = certificate.notBefore, now < start {
            throw Diagnostic.codeSign(
                .expired,
                "the certificate \(certificate.displayName) is not valid until \(SignatureTrustVerifier.day(start))", file: identity.file)
        }
    }

    static func checkProfile(
        _ profile: ProvisioningProfile, file: String, certificate: CertificateInfo, bundleIdentifier: String, now: Date
    ) throws {
        try checkProfileFits(profile, file: file, certificate: certificate, now: now)
        guard profile.matches(bundleIdentifier: bundleIdentifier) else {
            throw Diagnostic.codeSign(
                .profileMismatch,
                "\(named(profile)) is for the App ID \(profile.applicationIdentifier ?? "(none)"), which does not cover the bundle id \(bundleIdentifier)",
                file: file)
        }
    }

    /// `the profile "NAME" (UUID)`, as refusals name a profile.
    static func named(_ profile: ProvisioningProfile) -> String { "the profile \"\(profile.name)\" (\(profile.uuid))" }

    /// The checks of a profile (read from `file`) against the signing certificate that need no bundle:
    /// it lists the certificate, is of the certificate's team, and has not expired at `now`.
    static func checkProfileFits(_ profile: ProvisioningProfile, file: String, certificate: CertificateInfo, now: Date) throws {
        let named = named(profile)
        let listed = profile.developerCertificateData
        guard listed.contains(certificate.der) else {
            let names = profile.developerCertificates.map(\.name).joined(separator: ", ")
            throw Diagnostic.codeSign(
                .certificateNotInProfile,
                "\(named) does not list the certificate \(certificate.displayName) among its \(listed.count) DeveloperCertificates"
                    + (names.isEmpty ? "" : " (\(names))"), file: file,
                hint: "a device refuses the app (ApplicationVerificationFailed); use a profile that includes this certificate")
        }
        if let problem = teamProblem(profile, certificate: certificate) {
            throw Diagnostic.codeSign(
                .teamMismatch,
                "\(named) \(problem)", file: file,
                hint: "iOS refuses an app whose profile is of another team than its signer (the seal would not hold); "
                    + "use a profile of team \(certificate.organizationalUnit ?? "")")
        }
        if let end = profile.expirationDate, now > end {
            throw Diagnostic.codeSign(.expired, "\(named) expired on \(SignatureTrustVerifier.day(end))", file: file)
        }
    }

    /// `is for team B (its TeamIdentifier), but the certificate … is of team A` when the profile's team (its
    /// TeamIdentifier, or its application-identifier's prefix) is not the certificate's (its OU); nil when
    /// they agree or the certificate names no team.
    static func teamProblem(_ profile: ProvisioningProfile, certificate: CertificateInfo) -> String? {
        guard let team = certificate.organizationalUnit, !team.isEmpty else { return nil }
        var profileTeams = (profile.plist["TeamIdentifier"]?.arrayValue ?? []).compactMap(\.stringValue).map { ($0, "its TeamIdentifier") }
        if let identifier = profile.applicationIdentifier, let dot = identifier.firstIndex(of: ".") {
            profileTeams.append((String(identifier[..<dot]), "its application-identifier's prefix"))
        }
        guard let other = profileTeams.first(where: { $0.0 != team }) else { return nil }
        return "is for team \(other.0) (\(other.1)), but the certificate \(certificate.displayName) is of team \(team)"
    }

    /// The problem with one slice, or nil.
    static func sliceProblem(_ slice: MachOSlice, profile: ProvisioningProfile?, profileFile: String) -> String? {
        if let encryption = slice.encryption, encryption.isEncrypted {
            return "is encrypted (App Store DRM, cryptid \(encryption.cryptID)); decrypt it first"
        }
        guard let minimum = slice.minimumOS else { return nil }
        guard let accepted = profilePlatforms[minimum.platform] else {
            return "is built for \(minimum.platformName), which iPhones and iPads do not run; build it for iOS"
        }
        // A profile without a Platform list (older ones) is not judged on it.
        if let profile, !profile.platforms.isEmpty, !profile.platforms.contains(where: accepted.contains) {
            return
                "is built for \(minimum.platformName), but the profile \(profileFile) is for \(profile.platforms.joined(separator: ", "))"
        }
        return nil
    }

    /// For each device platform (`LC_BUILD_VERSION` number), the profile `Platform` names that provision it.
    static let profilePlatforms: [UInt32: Set<String>] = [
        2: ["iOS"], 3: ["tvOS"], 4: ["iOS", "watchOS"], 11: ["xrOS", "visionOS"]
    ]
}
