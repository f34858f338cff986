import CLibCrypto
import Foundation
import SystemSupport

/// A signing identity: a certificate, its private key, and the certificates of its chain, loaded from a
/// PKCS#12 (`.p12`) file as Keychain Access exports it, plus an optional PEM file of more chain certificates.
///
/// Loading refuses a p12 whose key is not the certificate's. Errors are one line naming the file; the
/// password never appears in them.
///
/// macOS Keychain exports p12 files encrypted with RC2-40 or 3DES, which OpenSSL 3 keeps in its *legacy*
/// provider. When a p12 whose MAC the password verifies still fails to decrypt, loading brings the legacy
/// provider (and the default one beside it) into libcrypto's default context with `OSSL_PROVIDER_load`
/// and tries again; the providers then stay loaded for the life of the process. If the legacy provider is
/// not installed, the error says so and names the file.
public struct SigningIdentity {
    /// The p12 file the identity came from (as given), for messages.
    public var file: String
    /// The signing certificate.
    public var certificate: CertificateInfo
    /// The certificate's private key.
    public let key: PrivateKey
    /// The other certificates to embed with the signature (the p12's, then the chain file's), without the
    /// signing certificate and without repeats, in the order found.
    public var chain: [CertificateInfo]

    /// Loads the p12 at `path` with the password from `password`, adding the certificates of the PEM file
    /// `chainPEM` (`--chain`) to the chain when given.
    public init(p12 path: String, password: PasswordSource, chainPEM: String? = nil) throws {
        let secret = try password.read()
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Diagnostic.codeSign(.unreadable, "cannot read the PKCS#12 identity file", file: path)
        }
        try self.init(p12: [UInt8](data), password: secret, file: path, chainPEM: chainPEM)
    }

    /// Loads p12 bytes read from `file` (used in messages) with `password`; see ``init(p12:password:chainPEM:)``.
    public init(p12 bytes: [UInt8], password: String, file: String, chainPEM: String? = nil) throws {
        let parsed = try SigningIdentity.parse(bytes, password: password, file: file)
        guard let certificate = parsed.certificate else {
            throw Diagnostic.codeSign(
                .identityInvalid,
                "the PKCS#12 file holds no certificate matching its private key (\(parsed.others.count) other certificates)", file: file)
        }
        guard parsed.key.matches(certificate) else {
            throw Diagnostic.codeSign(
                .identityInvalid,
                "the private key in the PKCS#12 file does not match its certificate \(certificate.displayName)", file: file)
        }
        var chain: [CertificateInfo] = []
        let extra = try chainPEM.map(SigningIdentity.readPEMCertificates) ?? []
        for candidate in parsed.others + extra where candidate.der != certificate.der && !chain.contains(candidate) {
            chain.append(candidate)
        }
        self.file = file
        self.certificate = certificate
        self.key = parsed.key
        self.chain = chain
    }

    /// Whether the key is the certificate's (always true for a loaded identity; kept for checks after changes).
    public var keyMatchesCertificate: Bool { key.matches(certificate) }

    /// Loads OpenSSL's legacy and default providers once per process; false when the legacy one is missing.
    private static let legacyProviderLoaded: Bool = {
        guard OSSL_PROVIDER_load(nil, "legacy") != nil else {
            LibCryptoErrors.clear()
            return false
        }
        _ = OSSL_PROVIDER_load(nil, "default")
        return true
    }()

    private struct Parsed {
        var key: PrivateKey
        var certificate: CertificateInfo?
        var others: [CertificateInfo]
    }

    private static func parse(_ bytes: [UInt8], password: String, file: String) throws -> Parsed {
        let wrongPassword = Diagnostic.codeSign(.wrongPassword, "wrong password, or not a PKCS#12 file", file: file)
        LibCryptoErrors.clear()
        guard let p12 = LibCrypto.decode(bytes, { d2i_PKCS12(nil, $0, $1) }) else {
            LibCryptoErrors.clear()
            throw wrongPassword
        }
        defer { PKCS12_free(p12) }
        try PKCS12WorkLimit.checkMAC(p12, file: file)
        // An empty password may have been applied as no password at all; PKCS12_parse tries both too.
        let macVerifies = PKCS12_verify_mac(p12, password, -1) == 1 || (password.isEmpty && PKCS12_verify_mac(p12, nil, 0) == 1)
        if PKCS12_mac_present(p12) == 1, !macVerifies {
            LibCryptoErrors.clear()
            throw wrongPassword
        }
        try PKCS12WorkLimit.checkEncryptedParts(p12, password: password, file: file)
        if let parsed = try parseVerified(p12, password: password, file: file) { return parsed }
        let reason = LibCryptoErrors.drain()
        guard legacyProviderLoaded else {
            throw Diagnostic.codeSign(
                .identityInvalid,
                "cannot decrypt the PKCS#12 file (\(reason)); it may use RC2 or 3DES, which need OpenSSL's legacy provider, "
                    + "and that provider is not available", file: file,
                hint: "install OpenSSL's legacy provider, or re-export the identity with AES encryption")
        }
        // Parts only the legacy provider decrypts are opened, and their keys checked, now.
        try PKCS12WorkLimit.checkEncryptedParts(p12, password: password, file: file)
        guard let parsed = try parseVerified(p12, password: password, file: file) else {
            throw Diagnostic.codeSign(.identityInvalid, "cannot decrypt the PKCS#12 file: \(LibCryptoErrors.drain())", file: file)
        }
        return parsed
    }

    /// `PKCS12_parse`, with everything it returns taken into Swift values (and freed); nil when it
    /// fails, an error naming `file` when it reads but holds no private key.
    private static func parseVerified(_ p12: OpaquePointer, password: String, file: String) throws -> Parsed? {
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        guard PKCS12_parse(p12, password, &key, &certificate, &others) == 1 else {
            if let key { EVP_PKEY_free(key) }
            if let certificate { X509_free(certificate) }
            if let others { shim_sk_X509_pop_free(others) }
            return nil
        }
        defer {
            if let certificate { X509_free(certificate) }
            if let others { shim_sk_X509_pop_free(others) }
        }
        guard let key else {
            throw Diagnostic.codeSign(
                .identityInvalid,
                "holds certificates but no private key, so it cannot sign; export the identity with its key "
                    + "(Keychain Access: My Certificates, the certificate with its key, as .p12)", file: file)
        }
        return Parsed(
            key: PrivateKey(taking: key), certificate: certificate.map(CertificateInfo.init),
            others: LibCrypto.certificates(others).map(CertificateInfo.init))
    }

    /// The certificates of a PEM file, in order; other PEM blocks are skipped.
    static func readPEMCertificates(_ path: String) throws -> [CertificateInfo] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Diagnostic.codeSign(.unreadable, "cannot read the certificate chain file", file: path)
        }
        let certificates = LibCrypto.pemCertificates([UInt8](data))
        guard !certificates.isEmpty else {
            throw Diagnostic.codeSign(.identityInvalid, "the certificate chain file holds no PEM certificate", file: path)
        }
        return certificates
    }
}
