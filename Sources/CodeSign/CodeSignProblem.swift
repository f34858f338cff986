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
    /// A certificate or a profile outside its validity (expired, or not valid yet).
    case expired
    /// A profile that does not list the signing certificate among its DeveloperCertificates.
    case certificateNotInProfile
    /// A profile of another team than the signing certificate's.
    case teamMismatch
    /// A profile whose App ID does not cover the bundle id, or given for a bundle id the app lacks, or missing.
    case profileMismatch
    /// Entitlements the profile does not grant.
    case entitlementsNotGranted

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
