import CLibCrypto
import Foundation

/// Verifies a certificate chain with libcrypto against one pinned root: the root is the only trust
/// anchor, found among the certificates given by its SHA-256 fingerprint, and every link's signature,
/// the CA constraints and the validity dates (at the time given) are checked by `X509_verify_cert`.
public enum CertificateChain {
    /// The SHA-256 fingerprint of Apple's "Apple Root CA" certificate (`C=US, O=Apple Inc., OU=Apple
    /// Certification Authority, CN=Apple Root CA`, valid 2006-04-25 to 2035-02-09), as Apple publishes it
    /// for AppleIncRootCertificate.cer at https://www.apple.com/certificateauthority/; the root every
    /// Apple-signed fixture's CMS carries has this fingerprint.
    public static let appleRootCASHA256: [UInt8] = [
        0xb0, 0xb1, 0x73, 0x0e, 0xcb, 0xc7, 0xff, 0x45, 0x05, 0x14, 0x2c, 0x49, 0xf1, 0x29, 0x5e, 0x6e,
        0xda, 0x6b, 0xca, 0xed, 0x7e, 0x2c, 0x68, 0xc5, 0xbe, 0x91, 0xb5, 0xa1, 0x10, 0x01, 0xf0, 0x24
    ]

    /// Apple's private extensions (1.2.840.113635.100.6.…) that its signing certificates mark critical and
    /// libcrypto does not know; only these may be critical and unhandled.
    static let appleExtensionPrefix = "1.2.840.113635.100.6."

    /// Checks that `leaf` chains to the certificate among `certificates` whose SHA-256 is `anchorSHA256`,
    /// through the others; returns nil when it does, else why not in one line.
    ///
    /// - Parameter time: the time the chain must be valid at (the signing time: the fixtures' certificates
    ///   have long expired), or nil for now.
    public static func problem(
        leaf: [UInt8], certificates: [[UInt8]], anchorSHA256: [UInt8], anchorName: String = "Apple Root CA", at time: Date?
    ) -> String? {
        LibCryptoErrors.clear()
        guard let anchorDER = certificates.first(where: { Digest.sha256($0) == anchorSHA256 }) else {
            return
                "the chain does not end in \(anchorName): no certificate with its SHA-256 fingerprint \(anchorSHA256.hexString) is present"
        }
        guard let leafCertificate = LibCrypto.decode(leaf, { d2i_X509(nil, $0, $1) }),
            let anchor = LibCrypto.decode(anchorDER, { d2i_X509(nil, $0, $1) })
        else {
            LibCryptoErrors.clear()
            return "a certificate of the chain is not DER X.509"
        }
        defer {
            X509_free(leafCertificate)
            X509_free(anchor)
        }
        let others = certificates.filter { $0 != leaf && $0 != anchorDER }.compactMap { LibCrypto.decode($0, { d2i_X509(nil, $0, $1) }) }
        defer { for other in others { X509_free(other) } }
        guard let store = X509_STORE_new(), let untrusted = shim_sk_X509_new_null(), let context = X509_STORE_CTX_new() else {
            return "libcrypto could not allocate"
        }
        defer {
            X509_STORE_CTX_free(context)
            shim_sk_X509_free(untrusted)
            X509_STORE_free(store)
        }
        guard X509_STORE_add_cert(store, anchor) == 1 else { return "libcrypto refused the anchor: \(LibCryptoErrors.drain())" }
        for other in others { _ = shim_sk_X509_push(untrusted, other) }
        guard X509_STORE_CTX_init(context, store, leafCertificate, untrusted) == 1 else {
            return "libcrypto could not set up the chain check: \(LibCryptoErrors.drain())"
        }
        if let time { X509_STORE_CTX_set_time(context, 0, time_t(time.timeIntervalSince1970)) }
        X509_STORE_CTX_set_verify_cb(context, allowAppleCriticalExtensions)
        if X509_verify_cert(context) != 1 {
            let code = X509_STORE_CTX_get_error(context)
            let depth = X509_STORE_CTX_get_error_depth(context)
            let reason = String(cString: X509_verify_cert_error_string(Int(code)))
            var place = "certificate \(depth)"
            if let current = X509_STORE_CTX_get_current_cert(context) { place = "\"\(CertificateInfo(current).displayName)\"" }
            LibCryptoErrors.clear()
            return "the chain does not verify to \(anchorName): \(place): \(reason)"
        }
        let chain = LibCrypto.certificates(X509_STORE_CTX_get0_chain(context))
        guard let last = chain.last, Digest.sha256(LibCrypto.der(last)) == anchorSHA256 else {
            return "the chain does not end in \(anchorName)"
        }
        return nil
    }

    /// A verify callback that lets through an "unhandled critical extension" error only when every
    /// critical extension libcrypto does not know is one of Apple's.
    static let allowAppleCriticalExtensions: X509_STORE_CTX_verify_cb = { ok, context in
        guard ok == 0, let context, X509_STORE_CTX_get_error(context) == X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION,
            let certificate = X509_STORE_CTX_get_current_cert(context)
        else { return ok }
        for index in 0..<max(0, X509_get_ext_count(certificate)) {
            guard let extensionPointer = X509_get_ext(certificate, index), X509_EXTENSION_get_critical(extensionPointer) == 1,
                X509_supported_extension(extensionPointer) == 0
            else { continue }
            let oid = LibCrypto.oid(X509_EXTENSION_get_object(extensionPointer))
            if !oid.hasPrefix(CertificateChain.appleExtensionPrefix) { return 0 }
        }
        return 1
    }
}
