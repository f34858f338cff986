/// What a signature is checked against beyond its seal (the CMS, the signer, the profile).
public struct SignatureTrustContext: Sendable {
    /// The bundle as shown to the user, e.g. "Payload/Test.app/PlugIns/N.appex".
    public var bundlePath: String
    /// The signature of one slice of the bundle's executable.
    public var signature: EmbeddedSignature
    /// The slice's architecture (`arm64`).
    public var architecture: String
    /// `embedded.mobileprovision` of this bundle, if any.
    public var profileData: [UInt8]?
    public var bundleIdentifier: String?

    public init(bundlePath: String, signature: EmbeddedSignature, architecture: String, profileData: [UInt8]?, bundleIdentifier: String?) {
        self.bundlePath = bundlePath
        self.signature = signature
        self.architecture = architecture
        self.profileData = profileData
        self.bundleIdentifier = bundleIdentifier
    }
}

/// One thing a trust check found: its kind (`teamMismatch`, `entitlementsNotGranted`, …) and its
/// line, without the bundle's path (the verifier adds it).
public struct TrustFinding: Sendable, Equatable, CustomStringConvertible {
    public var kind: CodeSignProblem
    public var message: String

    public init(_ kind: CodeSignProblem, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// What a trust check found for one signature, in the two verdicts (see ``SignatureTrustVerifier``).
public struct SignatureTrustProblems: Sendable, Equatable {
    /// What breaks the seal.
    public var seal: [TrustFinding]
    /// What iOS's installer would refuse though the seal holds.
    public var install: [TrustFinding]

    public init(seal: [TrustFinding] = [], install: [TrustFinding] = []) {
        self.seal = seal
        self.install = install
    }
}

/// Checks one signed slice's signature beyond its seal; ``CodeSealVerifier`` calls it once per signed
/// slice of every bundle and loose dylib, and names the slice where slices disagree.
public typealias SignatureTrustHook = @Sendable (SignatureTrustContext) -> SignatureTrustProblems
