import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// `adhocbuild verify`: the pre-publish check (``AppVerifier``: profile, devices, bundle ids,
/// versions, build kind) and the code signature (``SignatureReport``), in one list of findings.
///
/// A broken seal is an error (the first few problems of each code item, then a count), and so is
/// what iOS's installer would refuse (a signer or entitlements the profile does not cover, an
/// expired signer certificate; an expired profile is AppVerifier's, as before); unsigned and ad-hoc
/// code is a warning.
public struct PublishVerifier: Sendable {
    public var udids: [String]
    public var now: Date
    /// Also require the signer's and the profile's chains to end in Apple Root CA.
    public var anchorApple: Bool
    /// How many problems of one code item are listed before the rest are counted.
    public var problemsPerItem = 5
    /// The limits the input is opened with.
    public var limits: ReaderLimits = .standard

    public init(udids: [String] = [], now: Date = Date(), anchorApple: Bool = false) {
        self.udids = udids
        self.now = now
        self.anchorApple = anchorApple
    }

    /// Checks the .ipa, .app or .xcarchive at `path`.
    public func verify(path: String) throws -> [Diagnostic] {
        let package = try AppPackage.open(path, limits: limits)
        let findings = AppVerifier(udids: udids, now: now).verify(package)
        return findings + signatureFindings(try SignatureReport.verify(path: path, now: now, anchorApple: anchorApple, limits: limits))
    }

    /// What the signature adds to the findings.
    func signatureFindings(_ check: SignatureReport) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        for item in check.result.report.items {
            switch item.status {
            case .unsigned:
                findings.append(
                    .finding(.warning, "is unsigned; iOS will not install it until it is signed", subject: item.path))
                continue
            case .adhoc:
                findings.append(
                    .finding(
                        .warning,
                        "has an ad-hoc signature (no signer); iOS will not install it on a device until it is signed with a certificate",
                        subject: item.path))
                continue
            case .signed, .unreadable:
                break
            }
            // Expired profiles are AppVerifier's findings already.
            let install = item.installProblems.filter { $0.kind != .profileExpired }
            findings += itemFindings(item.problems, label: "signature", path: item.path)
            findings += itemFindings(install, label: "install", path: item.path)
        }
        return findings
    }

    /// The first ``problemsPerItem`` problems of one code item as errors, coded by their kind
    /// (`codesign.pageModified`), then how many more there are.
    private func itemFindings(_ problems: [CodeSealProblem], label: String, path: String) -> [Diagnostic] {
        var findings = problems.prefix(problemsPerItem).map { problem in
            var finding = Diagnostic.finding(
                .error, "\(label): " + ([problem.file, problem.message].compactMap { $0 }.joined(separator: ": ")),
                subject: path)
            finding.code = .codeSign(problem.kind)
            return finding
        }
        if problems.count > problemsPerItem {
            findings.append(
                .finding(
                    .error,
                    "\(label): and \(problems.count - problemsPerItem) more problems (adhocbuild codesign verify lists them)",
                    subject: path))
        }
        return findings
    }
}
