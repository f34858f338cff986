import CodeSign
import Foundation
import IPAKit
import PlistKit

/// `adhocbuild verify`: the pre-publish check (``AppVerifier``: profile, devices, bundle ids,
/// versions, build kind) and the code signature (``SignatureCheck``), in one list of findings.
///
/// A broken seal is an error (the first few problems of each code item, then a count); unsigned and
/// ad-hoc code is a warning; an expired signer certificate is a warning (an expired profile is
/// AppVerifier's, as before); a profile whose team is not the signer's is named among the problems.
public struct PublishCheck: Sendable {
    public var udids: [String]
    public var now: Date
    /// How many problems of one code item are listed before the rest are counted.
    public var problemsPerItem = 5

    public init(udids: [String] = [], now: Date = Date()) {
        self.udids = udids
        self.now = now
    }

    /// Checks the .ipa, .app or .xcarchive at `path`.
    public func check(path: String) throws -> [AppVerifier.Finding] {
        let package = try AppPackage.open(path)
        let findings = AppVerifier(udids: udids, now: now).verify(package)
        return findings + signatureFindings(try SignatureCheck.run(path: path, now: now))
    }

    /// What the signature adds to the findings.
    func signatureFindings(_ check: SignatureCheck) -> [AppVerifier.Finding] {
        var findings: [AppVerifier.Finding] = []
        for item in check.result.report.items {
            switch item.status {
            case .unsigned:
                findings.append(
                    .init(severity: .warning, message: "is unsigned; iOS will not install it until it is signed", subject: item.path))
                continue
            case .adhoc:
                findings.append(
                    .init(
                        severity: .warning,
                        message:
                            "has an ad-hoc signature (no signer); iOS will not install it on a device until it is signed with a certificate",
                        subject: item.path))
                continue
            case .signed, .unreadable:
                break
            }
            guard !item.problems.isEmpty else { continue }
            for problem in item.problems.prefix(problemsPerItem) {
                findings.append(
                    .init(
                        severity: .error,
                        message: "signature: " + ([problem.file, problem.message].compactMap { $0 }.joined(separator: ": ")),
                        subject: item.path))
            }
            if item.problems.count > problemsPerItem {
                findings.append(
                    .init(
                        severity: .error,
                        message:
                            "signature: and \(item.problems.count - problemsPerItem) more problems (adhocbuild codesign verify lists them)",
                        subject: item.path))
            }
        }
        // Expired profiles are AppVerifier's findings already; an expired signer certificate is new.
        for note in check.notes where !note.contains("embedded.mobileprovision expired") {
            findings.append(.init(severity: .warning, message: note, subject: nil))
        }
        return findings
    }
}
