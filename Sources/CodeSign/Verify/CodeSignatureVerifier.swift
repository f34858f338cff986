import Foundation
import IPAKit
import SystemSupport

// Verification's vocabulary (also in CONTRIBUTING.md): a `…Verifier` verifies one thing through
// `verify(…)`; a `…Report` is what it returns; a `…Problem` is one thing found wrong, a line of a
// report (the kind of a thrown error is a `CodeSignProblem` case); "seal" names only what a signature
// seals (the CodeDirectory's hashes, `_CodeSignature/CodeResources`) and "trust" who signed it and
// what for (the CMS, the signer, the profile, the entitlements).

/// What `codesign verify` checks, in one call: every seal (`CodeSealVerifier`) and, for each signed
/// slice of each code item, its signature's trust (`SignatureTrustVerifier`: the CMS, the signer against the
/// profile, the entitlements, the profile's own signature, expiry and, with `anchorApple`, the chains
/// to Apple Root CA), each finding filed as breaking the seal or as stopping the install.
public struct CodeSignatureVerifier: Sendable {
    /// Also require the signer's and the profile's chains to end in Apple Root CA.
    public var anchorApple = false
    /// The time expiry is judged at (signatures are checked at their own signing time).
    public var now = Date()
    /// The limits the input is opened with.
    public var limits: ReaderLimits = .standard

    public init(anchorApple: Bool = false, now: Date = Date()) {
        self.anchorApple = anchorApple
        self.now = now
    }

    /// The outcome: the report, whose items carry both verdicts, and who signed each bundle.
    public struct Report: Sendable {
        public var report: CodeSealReport
        /// Each signed bundle's signer (the certificate's common name), by the bundle's path as the
        /// report shows it (``CodeItemReport/path``).
        public var signers: [String: String] = [:]
    }

    /// Verifies the .ipa, .app or .xcarchive at `path`.
    public func verify(path: String) throws -> Report {
        try verify { try $0.verify(path: path) }
    }

    /// Verifies an opened app folder with the digests in `known` of files hashed as it was copied or
    /// unpacked (``DigestCache/knownDigests(at:types:)``): a file still as it was hashed, or left in
    /// the ipa it was unpacked from (opened with ``AppPackage/open(unpackedApp:carried:limits:)``), is
    /// not read again.
    public func verify(_ package: AppPackage, known: DigestCache) throws -> Report {
        try verify { try $0.verify(package, known: known) }
    }

    /// Runs `seal` with a seal verifier whose trust hook checks each signature and records its signer.
    private func verify(_ seal: (CodeSealVerifier) throws -> CodeSealReport) throws -> Report {
        let signers = Locked<[String: String]>([:])
        let anchorApple = anchorApple, now = now, plistLimits = limits.plist
        var verifier = CodeSealVerifier(trustHook: { context in
            let trust = SignatureTrustVerifier.verify(
                bundlePath: context.bundlePath, signature: context.signature, profileData: context.profileData,
                bundleIdentifier: context.bundleIdentifier, anchorApple: anchorApple, now: now, limits: plistLimits)
            if let signer = trust.cms?.signer.displayName {
                signers.withLock { if $0[context.bundlePath] == nil { $0[context.bundlePath] = signer } }
            }
            return SignatureTrustProblems(seal: trust.problems, install: trust.installProblems)
        })
        verifier.limits = limits
        let report = try seal(verifier)
        return Report(report: report, signers: signers.withLock { $0 })
    }
}
