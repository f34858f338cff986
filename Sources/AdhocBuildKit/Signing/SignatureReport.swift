import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// The code signature of an app as a release judges it: the seal verifier and the trust checks
/// (``CodeSignatureVerifier``) run on it, and the outcome said in one of four words.
///
/// A signed app whose seal (or whose nested code's seal) is broken will not install: `release`
/// refuses to publish it, `verify` reports it as an error. Unsigned and ad-hoc apps are reported as
/// warnings, never refused: they are what a build made without a certificate looks like.
public struct SignatureReport: Sendable {
    /// What the signature of the app says.
    public enum State: String, Sendable, Equatable {
        /// Signed, and every seal and trust check holds.
        case valid
        /// Signed, and something breaks the seal: iOS refuses to install it.
        case broken
        /// Signed and sealed, but iOS's installer would refuse it (the profile does not cover the
        /// signer or the entitlements, or has expired; with an anchor, a chain that is not Apple's).
        case uninstallable
        /// No signature at all.
        case unsigned
        /// An ad-hoc signature, with no signer.
        case adHoc = "ad-hoc"
    }

    public var result: CodeSignatureVerifier.Report
    public var state: State

    /// Verifies the .ipa, .app or .xcarchive at `path`; expiry is judged at `now`; with `anchorApple`
    /// a chain that does not end in Apple Root CA is an install problem.
    /// With `allowExpired` (`release --allow-expired`) an embedded profile or a signer certificate that has
    /// expired is not an install problem: the caller lets it through, with its own warning. The input
    /// is opened with `limits`.
    public static func verify(
        path: String, now: Date = Date(), anchorApple: Bool = false, allowExpired: Bool = false, limits: ReaderLimits = .standard
    ) throws -> SignatureReport {
        var verification = CodeSignatureVerifier(anchorApple: anchorApple, now: now)
        verification.limits = limits
        return report(try verification.verify(path: path), allowExpired: allowExpired)
    }

    /// ``verify(path:now:anchorApple:allowExpired:limits:)`` of the app folder `app` a release copied
    /// (or unpacked from an ipa with files left in it, `carried`: ``UnpackedApp``), with the digests
    /// its files had as they were copied or unpacked (`known`) for those that are still so.
    static func verify(
        copy app: String, carried: CarriedEntries?, known: DigestCache, now: Date, allowExpired: Bool, limits: ReaderLimits
    ) throws -> SignatureReport {
        var verification = CodeSignatureVerifier(now: now)
        verification.limits = limits
        let package =
            try carried.map { try AppPackage.open(unpackedApp: app, carried: $0, limits: limits.plist) }
            ?? AppPackage.open(app, limits: limits, folderDetail: .kinds)
        return report(try verification.verify(package, known: known), allowExpired: allowExpired)
    }

    /// The report of `result`, with the expiry install problems taken out when `allowExpired`.
    private static func report(_ result: CodeSignatureVerifier.Report, allowExpired: Bool) -> SignatureReport {
        var result = result
        var expired: [CodeSealProblem] = []
        if allowExpired {
            for index in result.report.items.indices {
                let isExpiry: (CodeSealProblem) -> Bool = { $0.kind == .expired || $0.kind == .profileExpired }
                expired += result.report.items[index].installProblems.filter(isExpiry)
                result.report.items[index].installProblems.removeAll(where: isExpiry)
            }
        }
        var check = SignatureReport(result: result)
        check.expiredLetThrough = expired
        return check
    }

    /// The expiry install problems `allowExpired` let through, for the caller to warn about.
    public var expiredLetThrough: [CodeSealProblem] = []

    public init(result: CodeSignatureVerifier.Report) {
        self.result = result
        let items = result.report.items
        // Nested code counts too: an ad-hoc app around a broken framework is broken.
        let sealBroken = items.contains { $0.status != .unsigned && !$0.sealIsValid }
        switch items.last?.status {
        case _ where sealBroken: state = .broken
        case .signed?, .unreadable?: state = items.allSatisfy(\.isInstallable) ? .valid : .uninstallable
        case .adhoc?: state = .adHoc
        case .unsigned?, nil: state = .unsigned
        }
    }

    /// The app: the last item of the report (nested code comes first).
    public var app: CodeItemReport? { result.report.items.last }

    /// The signing certificate's common name of the app, when signed by a certificate.
    public var signer: String? { app.flatMap { result.signers[$0.path] } }

    /// The team id in the app's signature.
    public var team: String? { app?.teamID }

    /// The app's cdhash in hex (its first slice's primary CodeDirectory), as `codesign verify` prints it.
    public var cdhash: String? { app?.cdhash?.hexString }

    /// The app's bundle name (`Test.app`), as messages name it.
    public var appName: String { app.map { ($0.path as NSString).lastPathComponent } ?? "the app" }

    /// Every problem that breaks a seal, unsigned and ad-hoc code aside (they are the state's to say).
    public var problems: [CodeSealProblem] {
        result.report.items.filter { $0.status != .unsigned }.flatMap(\.problems)
    }

    /// Everything iOS's installer would refuse in signed code, though its seal holds.
    public var installProblems: [CodeSealProblem] {
        result.report.items.filter { $0.status == .signed }.flatMap(\.installProblems)
    }

    /// Whether the build cannot be installed because of its signature (a broken seal or an install problem).
    public var stopsInstall: Bool { state == .broken || state == .uninstallable }

    /// The first `limit` problems joined with "; ", then how many more there are.
    public static func firstProblems(_ problems: [CodeSealProblem], limit: Int = 3) -> String {
        let shown = problems.prefix(limit).map(\.description).joined(separator: "; ")
        return problems.count > limit ? shown + "; and \(problems.count - limit) more" : shown
    }

    /// One line for people and CI: what the signature says and, unless valid, what it means for testers.
    public var summary: String {
        switch state {
        case .valid:
            let signer = app.flatMap { result.signers[$0.path] }.map { " by \"\($0)\"" } ?? ""
            let team = app?.teamID.map { ", team \($0)" } ?? ""
            let count = result.report.items.count
            return "the signature of \(appName) holds (signed\(signer)\(team); \(count) code item\(count == 1 ? "" : "s") sealed)"
        case .broken:
            return "the signature of \(appName) is broken (\(Self.firstProblems(problems))); iOS will refuse to install it"
        case .uninstallable:
            return "the seal of \(appName) holds, but iOS will refuse to install it (\(Self.firstProblems(installProblems)))"
        case .unsigned:
            return "\(appName) is unsigned; iOS will not install it until it is signed"
        case .adHoc:
            return
                "\(appName) has an ad-hoc signature (no signer); iOS will not install it on a device until it is signed with a certificate"
        }
    }
}
