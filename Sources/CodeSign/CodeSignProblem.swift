import SystemSupport

/// The kinds of problem reading or checking a Mach-O file, an embedded signature, a resource seal,
/// a signing identity or a profile's signature (domain `codesign`).
public enum CodeSignProblem: String, DiagnosticKind {
    /// Anything else that stops a signature being made or checked.
    case invalid
    /// Damaged or hostile bytes: a Mach-O file, a blob, a CodeDirectory, a requirement, entitlements,
    /// CodeResources, a CMS signature, a certificate or a profile's signature that cannot be read.
    case malformed
    /// Well-formed code adhocbuild does not sign: a big-endian slice, no room for a signature, past 4 GiB.
    case unsupported
    /// A file or folder that cannot be read, listed, mapped, created or written.
    case unreadable
    /// A bundle that is not one adhocbuild can sign: no Info.plist, no identifier or executable, a
    /// macOS-style framework, a link leading outside it.
    case bundleInvalid
    /// A slice that cannot be signed for a device: encrypted, or built for another platform than the profile's.
    case sliceNotSignable
    /// A PKCS#12 identity that the password does not open.
    case wrongPassword
    /// A signing identity that cannot be used: its key does not match its certificate, it holds no key
    /// or certificate, its chain file holds none, its password source is missing.
    case identityInvalid
    /// A certificate or a profile outside its validity (expired, or not valid yet); as a verification
    /// finding, an install problem that the embedded profile or the signer has expired.
    case expired
    /// A CMS SignedData whose signature does not verify over the content it carries (``SignedDataVerifier``).
    case signatureInvalid
    /// A CMS signer whose certificate does not chain to a trusted anchor (``SignedDataVerifier``).
    case signerUntrusted
    /// A profile that does not list the signing certificate among its DeveloperCertificates.
    case certificateNotInProfile
    /// A profile of another team than the signing certificate's.
    case teamMismatch
    /// A profile whose App ID does not cover the bundle id, or given for a bundle id the app lacks, or missing.
    case profileMismatch
    /// Entitlements the profile does not grant.
    case entitlementsNotGranted

    // What a verification finds (``CodeSealProblem/kind``); damaged or unreadable parts are
    // ``malformed`` and ``unreadable``, a bundle without Info.plist or executable ``bundleInvalid``.

    /// Code with no embedded signature (a slice of a fat file, or the whole executable, or no Mach-O file).
    case signatureMissing
    /// A code page whose hash is not the one its CodeDirectory seals.
    case pageModified
    /// A CodeDirectory whose page layout or code limit does not fit the slice or where its signature starts.
    case codeLayoutMismatch
    /// A CodeDirectory or signature identifier that is not the primary CodeDirectory's or the bundle id.
    case identifierMismatch
    /// A special slot (Info.plist, requirements, CodeResources, entitlements) whose content is not the sealed one.
    case specialSlotModified
    /// A special slot that is sealed, but whose content is gone.
    case specialSlotMissing
    /// Content a CodeDirectory should seal in a special slot, but does not (or a bundle without CodeResources).
    case specialSlotUnsealed
    /// A sealed resource whose content or kind (file, symbolic link, nested code) is not the sealed one.
    case resourceModified
    /// A sealed resource that is not there.
    case resourceMissing
    /// A file the resource rules seal that CodeResources does not list.
    case resourceAdded
    /// Nested code whose cdhash is not the one CodeResources seals.
    case nestedCodeModified
    /// What the trust check (``SignatureTrustHook``) finds breaks the seal: the CMS signature, the
    /// signer, the entitlements' own form.
    case signatureUntrusted
    /// What the trust check finds iOS's installer would refuse though the seal holds.
    case installRefused

    public static let domain = "codesign"
}

extension DiagnosticCode {
    /// A code signing problem: `.codeSign(.malformed)`.
    public static func codeSign(_ kind: CodeSignProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A code signing problem of `kind`: the file, the place (`byte 0x1234`, `slice arm64`, `CodeDirectory`),
    /// then what is wrong. Hostile input always ends up here, never in a trap.
    public static func codeSign(
        _ kind: CodeSignProblem, _ message: String, file: String? = nil, location: String? = nil, hint: String? = nil
    ) -> Diagnostic {
        Diagnostic(.codeSign(kind), message, file: file, places: location.map { [.text($0)] } ?? [], hint: hint)
    }

    /// A code signing problem of kind ``CodeSignProblem/invalid``.
    public static func codeSign(
        _ message: String, file: String? = nil, location: String? = nil, hint: String? = nil
    ) -> Diagnostic {
        codeSign(.invalid, message, file: file, location: location, hint: hint)
    }

    /// A code signing problem about the bytes at `offset`, placed as `byte 0x…`: malformed bytes unless
    /// `kind` says otherwise.
    public static func codeSign(_ kind: CodeSignProblem = .malformed, at offset: Int, _ message: String) -> Diagnostic {
        Diagnostic(.codeSign(kind), message, places: [.hexByte(offset)])
    }
}
