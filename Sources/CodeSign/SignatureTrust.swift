import Foundation
import PlistKit

/// The trust half of `codesign verify` for one bundle: the CMS signature over the CodeDirectory and
/// its attributes, the signer against the embedded profile, the team ids, the entitlements against
/// the profile's, the profile's own CMS, and with `anchorApple` both chains to Apple's pinned root.
///
/// Expiry is kept apart (``Report/notes``): every check runs at the signature's signing time, so an
/// old build whose certificate and profile were valid when it was signed verifies, as `codesign`
/// accepts a signature made while its certificate was valid. The notes say, as warnings, that the
/// signer certificate or the profile has expired by `now`; iOS refuses to install an ad-hoc or
/// development build whose profile has expired, so `verify` should print them as warnings (exit 0)
/// and `release` should warn that testers cannot install the build.
public enum SignatureTrust {
    /// Everything the checks found for one bundle.
    public struct Report: Sendable {
        /// The code signature's CMS, when it could be read.
        public var cms: CodeSignatureCMS?
        /// The embedded profile, when there is one and it could be read.
        public var profile: ProfileSignature?
        /// Whether the signature is ad-hoc (nothing to trust).
        public var isAdHoc: Bool
        /// What breaks trust in the signature, one line each, without the bundle path.
        public var problems: [String]
        /// Warnings that do not break the seal: certificates or profiles expired by `now`. Each begins "note:".
        public var notes: [String]
    }

    /// The problems `verify` reports for a bundle (see ``evaluate(bundlePath:signature:profileData:bundleIdentifier:anchorApple:now:)``).
    public static func problems(
        bundlePath: String, signature: EmbeddedSignature, profileData: [UInt8]?, bundleIdentifier: String?, anchorApple: Bool, now: Date
    ) -> [String] {
        evaluate(
            bundlePath: bundlePath, signature: signature, profileData: profileData, bundleIdentifier: bundleIdentifier,
            anchorApple: anchorApple, now: now
        ).problems
    }

    /// Runs every trust check on a bundle's signature.
    ///
    /// - Parameters:
    ///   - bundlePath: the bundle as shown to the user (messages leave it out; it is for the caller).
    ///   - profileData: the bundle's `embedded.mobileprovision`, or nil (frameworks have none).
    ///   - bundleIdentifier: the bundle's CFBundleIdentifier, for the application-identifier.
    ///   - anchorApple: also require both chains (code signer and profile signer) to end in Apple Root CA.
    ///   - now: the time expiry notes are judged at.
    public static func evaluate(
        bundlePath: String, signature: EmbeddedSignature, profileData: [UInt8]?, bundleIdentifier: String?, anchorApple: Bool, now: Date
    ) -> Report {
        let checked = CodeSignatureCMSCheck.check(signature)
        var report = Report(cms: checked.cms, profile: nil, isAdHoc: checked.isAdHoc, problems: checked.problems, notes: [])
        if checked.isAdHoc {
            if anchorApple { report.problems.append("anchor apple: the signature is ad-hoc, with no certificate chain to Apple Root CA") }
            return report
        }
        if let profileData {
            do {
                let profile = try ProfileSignature(bytes: profileData)
                report.profile = profile
                if let failure = profile.verificationFailure {
                    report.problems.append("embedded.mobileprovision: its CMS signature does not verify: \(failure)")
                }
            } catch let error as CodeSignError {
                report.problems.append("embedded.mobileprovision: \(error.problem)")
            } catch {
                report.problems.append("embedded.mobileprovision: \(error)")
            }
        }
        if let cms = checked.cms {
            report.problems += signerProblems(cms, report.profile)
            report.problems += designatedRequirementProblems(signature, cms)
        }
        report.problems += teamProblems(signature, checked.cms, report.profile)
        report.problems += entitlementProblems(signature, report.profile, bundleIdentifier: bundleIdentifier)
        if anchorApple { report.problems += anchorProblems(checked.cms, report.profile) }
        report.notes = expiryNotes(checked.cms, report.profile, now: now)
        return report
    }

    /// The code must satisfy its own designated requirement (its identifier, its anchor, its signer's
    /// name and Apple's developer marker), as `codesign --verify` checks it. Requirements that use
    /// what cannot be judged here are left alone, never reported as broken.
    static func designatedRequirementProblems(_ signature: EmbeddedSignature, _ cms: CodeSignatureCMS) -> [String] {
        guard let designated = signature.requirements?.designated else { return [] }
        let context = RequirementContext(
            identifier: signature.codeDirectory?.identifier, cdhashes: signature.codeDirectories.map { $0.cdhash() },
            chain: RequirementContext.chain(from: cms.signer, among: cms.certificates),
            entitlements: (try? signature.entitlements?.entitlements())?.dictionaryValue)
        guard RequirementEvaluator.evaluate(designated.expression, in: context) == .notSatisfied else { return [] }
        return ["does not satisfy its designated requirement: \(RequirementText.text(of: designated.expression))"]
    }

    static func signerProblems(_ cms: CodeSignatureCMS, _ profile: ProfileSignature?) -> [String] {
        var problems: [String] = []
        if let time = cms.signingTime, cms.signer.isOutsideValidity(at: time) {
            problems.append("signer \"\(cms.signer.displayName)\" was not valid at the signing time \(day(time))")
        }
        guard let profile else { return problems }
        if !profile.developerCertificates.contains(cms.signer.der) {
            let names = profile.developerCertificates.compactMap { try? CertificateInfo(der: $0).displayName }
            let listed = names.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ") + (names.count > 3 ? ", …" : "")
            problems.append(
                "signer \"\(cms.signer.displayName)\" (SHA-1 \(cms.signer.sha1Hex)) is not one of the profile's "
                    + "\(profile.developerCertificates.count) DeveloperCertificates (\(listed))")
        }
        return problems
    }

    static func teamProblems(_ signature: EmbeddedSignature, _ cms: CodeSignatureCMS?, _ profile: ProfileSignature?) -> [String] {
        var sources: [(String, String)] = []
        if let team = cms?.signer.organizationalUnit { sources.append(("signer certificate OU", team)) }
        for (index, directory) in signature.codeDirectories.enumerated() {
            if let team = directory.teamID { sources.append((index == 0 ? "CodeDirectory" : "alternate CodeDirectory \(index)", team)) }
        }
        if let profile {
            for team in profile.teamIdentifiers { sources.append(("profile TeamIdentifier", team)) }
            if let identifier = profile.entitlements?["application-identifier"]?.stringValue, let dot = identifier.firstIndex(of: ".") {
                sources.append(("profile application-identifier prefix", String(identifier[..<dot])))
            }
        }
        guard Set(sources.map(\.1)).count > 1 else { return [] }
        var seen = Set<String>()
        let unique = sources.filter { seen.insert("\($0.0)=\($0.1)").inserted }
        return ["team ids differ: " + unique.map { "\($0.0) \($0.1)" }.joined(separator: ", ")]
    }

    static func entitlementProblems(_ signature: EmbeddedSignature, _ profile: ProfileSignature?, bundleIdentifier: String?) -> [String] {
        var problems: [String] = []
        var xml: PlistDictionary?
        var der: PlistDictionary?
        do {
            if let blob = signature.entitlements {
                guard let dictionary = try blob.entitlements().dictionaryValue else { return ["the XML entitlements are not a dictionary"] }
                xml = dictionary
            }
            if let blob = signature.derEntitlements {
                guard let dictionary = try blob.entitlements().dictionaryValue else { return ["the DER entitlements are not a dictionary"] }
                der = dictionary
            }
        } catch let error as CodeSignError {
            return ["entitlements: \(error.problem)"]
        } catch {
            return ["entitlements: \(error)"]
        }
        if let xml, let der, xml != der {
            let keys = Set(xml.keys).union(der.keys).filter { xml[$0] != der[$0] }.sorted()
            problems.append("the DER entitlements differ from the XML entitlements in \(keys.joined(separator: ", "))")
        }
        guard let signed = xml ?? der else { return problems }
        if let granted = profile?.entitlements {
            problems += EntitlementsPolicy.problems(signed: signed, granted: granted, bundleIdentifier: bundleIdentifier)
        } else {
            problems += EntitlementsPolicy.bundleIdentifierProblems(signed: signed, bundleIdentifier: bundleIdentifier)
        }
        return problems
    }

    static func anchorProblems(_ cms: CodeSignatureCMS?, _ profile: ProfileSignature?) -> [String] {
        var problems: [String] = []
        if let cms,
            let reason = CertificateChain.problem(
                leaf: cms.signer.der, certificates: cms.certificates.map(\.der), anchorSHA256: CertificateChain.appleRootCASHA256,
                at: cms.signingTime)
        {
            problems.append("anchor apple: signer \"\(cms.signer.displayName)\": \(reason)")
        }
        if let profile {
            if let signer = profile.signer {
                // Profiles signed before 2017 carry the old Apple Computer root, not Apple Root CA that issued
                // their CA; the root the code signature carries completes the chain (it is pinned either way).
                let pool = profile.certificates.map(\.der) + (cms?.certificates.map(\.der) ?? [])
                if let reason = CertificateChain.problem(
                    leaf: signer.der, certificates: pool, anchorSHA256: CertificateChain.appleRootCASHA256, at: profile.signingTime)
                {
                    problems.append("anchor apple: embedded.mobileprovision signer \"\(signer.displayName)\": \(reason)")
                }
            } else {
                problems.append("anchor apple: embedded.mobileprovision carries no signer certificate")
            }
        }
        return problems
    }

    static func expiryNotes(_ cms: CodeSignatureCMS?, _ profile: ProfileSignature?, now: Date) -> [String] {
        var notes: [String] = []
        if let cms, let end = cms.signer.notAfter, now > end {
            notes.append("note: signer certificate \"\(cms.signer.displayName)\" expired on \(day(end))")
        }
        if let end = profile?.expirationDate, now > end {
            notes.append("note: embedded.mobileprovision expired on \(day(end)); iOS will not install the build with it")
        }
        return notes
    }

    /// A date as `2021-05-09`.
    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}
