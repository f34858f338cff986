import Foundation
import SystemSupport

/// What `codesign verify` checks, in one call: every seal (`CodeSealVerifier`) and, for each signed
/// bundle, its signature's trust (`SignatureTrust`: the CMS, the signer against the profile, the
/// entitlements, the profile's own signature and, with `anchorApple`, the chains to Apple Root CA).
public struct CodeSignatureVerification: Sendable {
    /// Also require the signer's and the profile's chains to end in Apple Root CA.
    public var anchorApple = false
    /// The time expiry notes are judged at (signatures are checked at their own signing time).
    public var now = Date()

    public init(anchorApple: Bool = false, now: Date = Date()) {
        self.anchorApple = anchorApple
        self.now = now
    }

    /// The outcome: the seal report (its problems include the trust problems, under each bundle) and
    /// the notes that do not break a seal (an expired certificate or profile), each naming its bundle.
    public struct Result: Sendable {
        public var report: CodeSealReport
        public var notes: [String]
        /// Each signed bundle's signer (the certificate's common name), by the bundle's path as the
        /// report shows it (``CodeItemSeal/path``).
        public var signers: [String: String] = [:]
    }

    /// Verifies the .ipa, .app or .xcarchive at `path`.
    public func verify(path: String) throws -> Result {
        let notes = Locked<[String]>([])
        let signers = Locked<[String: String]>([:])
        let anchorApple = anchorApple, now = now
        let verifier = CodeSealVerifier(trustCheck: { context in
            let trust = SignatureTrust.evaluate(
                bundlePath: context.bundlePath, signature: context.signature, profileData: context.profileData,
                bundleIdentifier: context.bundleIdentifier, anchorApple: anchorApple, now: now)
            let plain = trust.notes.map { $0.hasPrefix("note: ") ? String($0.dropFirst("note: ".count)) : $0 }
            notes.withLock { $0 += plain.map { "\(context.bundlePath): \($0)" } }
            if let signer = trust.cms?.signer.displayName { signers.withLock { $0[context.bundlePath] = signer } }
            return trust.problems
        })
        let report = try verifier.verify(path: path)
        return Result(report: report, notes: notes.withLock { $0 }, signers: signers.withLock { $0 })
    }
}
