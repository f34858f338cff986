/// What a bundle's signature is checked against beyond its seal (the CMS, the signer, the profile);
/// each returned string is one problem, without the bundle's path (the verifier adds it).
public struct SignatureTrustContext: Sendable {
    public var bundlePath: String  // as shown to the user, e.g. "Payload/Test.app/PlugIns/N.appex"
    public var signature: EmbeddedSignature
    public var profileData: [UInt8]?  // embedded.mobileprovision of this bundle, if any
    public var bundleIdentifier: String?

    public init(bundlePath: String, signature: EmbeddedSignature, profileData: [UInt8]?, bundleIdentifier: String?) {
        self.bundlePath = bundlePath
        self.signature = signature
        self.profileData = profileData
        self.bundleIdentifier = bundleIdentifier
    }
}

/// Checks one signed bundle's signature beyond its seal; ``CodeSealVerifier`` calls it once per signed
/// bundle (and per loose dylib), and reports each returned string as a problem of that bundle.
public typealias SignatureTrustCheck = @Sendable (SignatureTrustContext) -> [String]
