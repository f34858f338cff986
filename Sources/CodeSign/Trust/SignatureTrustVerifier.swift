import Foundation
import PlistKit
import SystemSupport

/// The trust half of `codesign verify` for one signature (one slice of one code item), in two
/// verdicts:
///
/// - the **seal** (``Report/problems``), what `codesign --verify --deep --strict` judges: the CMS
///   signature over the CodeDirectory and its attributes, the signer's validity at the signing time,
///   the designated requirement, the team in the CodeDirectory against the signer's certificate, and
///   the XML entitlements against the DER ones;
/// - what iOS's **installer** would refuse (``Report/installProblems``): a signer that is not one of
///   the embedded profile's certificates, a profile of another team or whose own signature fails,
///   entitlements the profile does not grant (an unresolved wildcard among them), a certificate or
///   profile expired by `now`, and with `anchorApple` a chain that does not end in Apple Root CA.
///
/// Every check runs at the signature's signing time, so an old build whose certificate and profile
/// were valid when it was signed keeps an intact seal; that they have expired since is an install
/// problem, judged at `now`.
public enum SignatureTrustVerifier {
    /// Everything the checks found for one signature.
    public struct Report: Sendable {
        /// The code signature's CMS, when it could be read.
        public var cms: CodeSignatureCMS?
        /// The embedded profile, when there is one and it could be read.
        public var profile: ProfileSignature?
        /// Whether the signature is ad-hoc (nothing to trust).
        public var isAdHoc: Bool
        /// What breaks the seal, one line each, without the bundle path.
        public var problems: [TrustFinding]
        /// What iOS would refuse at install though the seal holds, one line each, without the bundle path.
        public var installProblems: [TrustFinding]
    }

    /// Runs every trust check on a signature.
    ///
    /// - Parameters:
    ///   - bundlePath: the bundle as shown to the user (messages leave it out; it is for the caller).
    ///   - profileData: the bundle's `embedded.mobileprovision`, or nil (frameworks have none).
    ///   - bundleIdentifier: the bundle's CFBundleIdentifier, for the application-identifier.
    ///   - anchorApple: also require both chains (code signer and profile signer) to end in Apple Root CA.
    ///   - now: the time expiry is judged at.
    ///   - limits: the limits the plists in the signature and the profile are read with.
    public static func verify(
        bundlePath: String, signature: EmbeddedSignature, profileData: [UInt8]?, bundleIdentifier: String?, anchorApple: Bool, now: Date,
        limits: PlistLimits = .default
    ) -> Report {
        let checked = CodeSignatureCMSVerifier.verify(signature, limits: limits)
        var report = Report(
            cms: checked.cms, profile: nil, isAdHoc: checked.isAdHoc,
            problems: checked.problems.map { TrustFinding(.signatureUntrusted, $0) },
            installProblems: [])
        if checked.isAdHoc {
            if anchorApple {
                report.installProblems.append(
                    TrustFinding(.anchorNotApple, "anchor apple: the signature is ad-hoc, with no certificate chain to Apple Root CA"))
            }
            return report
        }
        if let profileData {
            do {
                let profile = try ProfileSignature(bytes: profileData, limits: limits)
                report.profile = profile
                if let failure = profile.verificationFailure {
                    report.installProblems.append(
                        TrustFinding(.profileUntrusted, "embedded.mobileprovision: its CMS signature does not verify: \(failure)"))
                }
            } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
                report.installProblems.append(TrustFinding(.profileUntrusted, "embedded.mobileprovision: \(error.message)"))
            } catch {
                report.installProblems.append(TrustFinding(.profileUntrusted, "embedded.mobileprovision: \(error)"))
            }
        }
        if let cms = checked.cms {
            report.problems += signingTimeProblems(cms)
            report.problems += designatedRequirementProblems(signature, cms, limits: limits)
            report.installProblems += profileSignerProblems(cms, report.profile)
        }
        report.problems += teamProblems(signature, checked.cms)
        report.installProblems += profileTeamProblems(signature, checked.cms, report.profile)
        let entitlements = entitlementProblems(signature, report.profile, bundleIdentifier: bundleIdentifier, limits: limits)
        report.problems += entitlements.seal
        report.installProblems += entitlements.install
        report.installProblems += expiryProblems(checked.cms, report.profile, now: now)
        if anchorApple { report.installProblems += anchorProblems(checked.cms, report.profile) }
        return report
    }

    /// The code must satisfy its own designated requirement (its identifier, its anchor, its signer's
    /// name and Apple's developer marker), as `codesign --verify` checks it. Requirements that use
    /// what cannot be judged here are left alone, never reported as broken.
    static func designatedRequirementProblems(
        _ signature: EmbeddedSignature, _ cms: CodeSignatureCMS, limits: PlistLimits = .default
    ) -> [TrustFinding] {
        guard let designated = signature.requirements?.designated else { return [] }
        let context = RequirementContext(
            identifier: signature.codeDirectory?.identifier, cdhashes: signature.codeDirectories.map { $0.cdhash() },
            chain: RequirementContext.chain(from: cms.signer, among: cms.certificates),
            // Read only when the requirement asks for them: a hostile blob of a million keys is parsed once, not per check.
            entitlements: designated.expression.usesEntitlements
                ? (try? signature.entitlements?.entitlements(limits: limits))?.dictionaryValue : nil)
        guard RequirementEvaluator.evaluate(designated.expression, in: context) == .notSatisfied else { return [] }
        return [
            TrustFinding(
                .requirementNotSatisfied, "does not satisfy its designated requirement: \(RequirementText.text(of: designated.expression))")
        ]
    }

    /// The signer's certificate must have been valid when it signed.
    static func signingTimeProblems(_ cms: CodeSignatureCMS) -> [TrustFinding] {
        guard let time = cms.signingTime, cms.signer.isOutsideValidity(at: time) else { return [] }
        return [TrustFinding(.signatureUntrusted, "signer \"\(cms.signer.displayName)\" was not valid at the signing time \(day(time))")]
    }

    /// iOS installs only code signed by one of the embedded profile's DeveloperCertificates.
    static func profileSignerProblems(_ cms: CodeSignatureCMS, _ profile: ProfileSignature?) -> [TrustFinding] {
        guard let profile, !profile.developerCertificates.contains(cms.signer.der) else { return [] }
        let names = profile.developerCertificates.compactMap { try? CertificateInfo(der: $0).displayName }
        let listed = names.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ") + (names.count > 3 ? ", …" : "")
        return [
            TrustFinding(
                .certificateNotInProfile,
                "signer \"\(cms.signer.displayName)\" (SHA-1 \(cms.signer.sha1Hex)) is not one of the profile's "
                    + "\(profile.developerCertificates.count) DeveloperCertificates (\(listed))")
        ]
    }

    /// The team in every CodeDirectory against the signer certificate's OU. Code Apple signs with
    /// its own software-signing certificate (OU "Apple Software", its CodeDirectories naming Apple's
    /// team) is judged by its chain, not by the OU, as codesign judges it.
    static func teamProblems(_ signature: EmbeddedSignature, _ cms: CodeSignatureCMS?) -> [TrustFinding] {
        differingTeams(codeTeams(signature, cms))
    }

    /// The profile's team (its TeamIdentifier and application-identifier prefix) against the code's.
    static func profileTeamProblems(_ signature: EmbeddedSignature, _ cms: CodeSignatureCMS?, _ profile: ProfileSignature?)
        -> [TrustFinding]
    {
        guard let profile else { return [] }
        let sources = codeTeams(signature, cms)
        var profileTeams: [(String, String)] = profile.teamIdentifiers.map { ("profile TeamIdentifier", $0) }
        if let identifier = profile.entitlements?["application-identifier"]?.stringValue, let dot = identifier.firstIndex(of: ".") {
            profileTeams.append(("profile application-identifier prefix", String(identifier[..<dot])))
        }
        // A profile at odds with itself, or with code whose own teams agree: the seal check names the latter.
        guard differingTeams(sources).isEmpty else { return differingTeams(profileTeams) }
        return differingTeams(sources + profileTeams)
    }

    /// The teams the code names: the signer certificate's OU (unless Apple signed it with its own
    /// software-signing certificate), then every CodeDirectory's.
    private static func codeTeams(_ signature: EmbeddedSignature, _ cms: CodeSignatureCMS?) -> [(String, String)] {
        var sources: [(String, String)] = []
        if let cms, !cms.signer.isAppleSoftwareSigning, let team = cms.signer.organizationalUnit {
            sources.append(("signer certificate OU", team))
        }
        return sources
            + signature.codeDirectories.enumerated().compactMap { index, directory in
                directory.teamID.map { (index == 0 ? "CodeDirectory" : "alternate CodeDirectory \(index)", $0) }
            }
    }

    private static func differingTeams(_ sources: [(String, String)]) -> [TrustFinding] {
        guard Set(sources.map(\.1)).count > 1 else { return [] }
        var seen = Set<String>()
        let unique = sources.filter { seen.insert("\($0.0)=\($0.1)").inserted }
        return [TrustFinding(.teamMismatch, "team ids differ: " + unique.map { "\($0.0) \($0.1)" }.joined(separator: ", "))]
    }

    /// The entitlements' own form and agreement (seal), and what the profile grants (install).
    static func entitlementProblems(
        _ signature: EmbeddedSignature, _ profile: ProfileSignature?, bundleIdentifier: String?, limits: PlistLimits = .default
    ) -> (seal: [TrustFinding], install: [TrustFinding]) {
        func mismatch(_ message: String) -> [TrustFinding] { [TrustFinding(.entitlementsMismatch, message)] }
        var xml: PlistDictionary?
        var der: PlistDictionary?
        do {
            if let blob = signature.entitlements {
                guard let dictionary = try blob.entitlements(limits: limits).dictionaryValue else {
                    return (mismatch("the XML entitlements are not a dictionary"), [])
                }
                xml = dictionary
            }
            if let blob = signature.derEntitlements {
                guard let dictionary = try blob.entitlements(limits: limits).dictionaryValue else {
                    return (mismatch("the DER entitlements are not a dictionary"), [])
                }
                der = dictionary
            }
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            return (mismatch("entitlements: \(error.message)"), [])
        } catch {
            return (mismatch("entitlements: \(error)"), [])
        }
        var seal: [TrustFinding] = []
        if let xml, let der, xml != der {
            let keys = Set(xml.keys).union(der.keys).filter { xml[$0] != der[$0] }.sorted()
            seal += mismatch("the DER entitlements differ from the XML entitlements in \(keys.joined(separator: ", "))")
        }
        guard let signed = xml ?? der else { return (seal, []) }
        let install =
            profile?.entitlements.map { EntitlementsPolicy.problems(signed: signed, granted: $0, bundleIdentifier: bundleIdentifier) }
            ?? EntitlementsPolicy.bundleIdentifierProblems(signed: signed, bundleIdentifier: bundleIdentifier)
        return (seal, install.map { TrustFinding(.entitlementsNotGranted, $0) })
    }

    static func anchorProblems(_ cms: CodeSignatureCMS?, _ profile: ProfileSignature?) -> [TrustFinding] {
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
        return problems.map { TrustFinding(.anchorNotApple, $0) }
    }

    /// A signer certificate or profile expired by `now`: iOS will not install the build.
    /// Kinds ``CodeSignProblem/expired`` (the signer's certificate) and ``CodeSignProblem/profileExpired``,
    /// which `release --allow-expired` lets through.
    static func expiryProblems(_ cms: CodeSignatureCMS?, _ profile: ProfileSignature?, now: Date) -> [TrustFinding] {
        var problems: [TrustFinding] = []
        if let cms, let end = cms.signer.notAfter, now > end {
            problems.append(TrustFinding(.expired, "signer certificate \"\(cms.signer.displayName)\" expired on \(day(end))"))
        }
        if let end = profile?.expirationDate, now > end {
            problems.append(
                TrustFinding(.profileExpired, "embedded.mobileprovision expired on \(day(end)); iOS will not install the build with it"))
        }
        return problems
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
