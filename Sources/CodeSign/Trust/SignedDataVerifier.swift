import CLibCrypto
import Foundation
import PlistKit
import SystemSupport

/// What ``SignedDataVerifier`` found in a CMS SignedData it accepted.
public struct SignedDataReport: Sendable {
    /// The attached content, exactly as signed.
    public var content: [UInt8]
    /// The signer's certificate.
    public var signer: CertificateInfo
    /// The common name of the signer's issuer (`Apple iPhone Device CA`), else its whole name on one line.
    public var signerIssuer: String
    /// The verified chain, from the signer to the anchor it reached.
    public var chain: [CertificateInfo]
    /// The SHA-256 of the SignerInfo's signature value: the same message sent twice has the same one.
    public var signatureDigest: [UInt8]
}

/// Verifies a DER CMS SignedData with attached content and one signer against ``TrustAnchors`` (libcrypto):
/// the signer's chain must reach an anchor (a partial chain is enough, so an intermediate can be the
/// anchor; any certificate purpose or EKU is accepted, as devices' certificates carry none for S/MIME),
/// and the signature, its signed attributes and the content must verify.
///
/// Used for what an iPhone POSTs to an enrollment's receiver; every problem is one line of a
/// ``CodeSignProblem``: ``CodeSignProblem/malformed`` (not a SignedData, detached, not one signer, too
/// large), ``CodeSignProblem/signerUntrusted``, ``CodeSignProblem/expired`` and ``CodeSignProblem/signatureInvalid``.
public enum SignedDataVerifier {
    /// The largest message accepted, in bytes (a device's reply is a few KiB).
    public static let maximumBytes = 1 << 20
    /// The most certificates a message may carry.
    public static let maximumCertificates = 16

    /// Verifies `der` against `anchors`, at `now` (nil: the current time), not checking validity dates
    /// when `ignoreExpiry` is set (Apple's iPhone Device CA expired in 2014); returns the content and signer.
    public static func verify(der: [UInt8], anchors: TrustAnchors, ignoreExpiry: Bool, now: Date?) throws -> SignedDataReport {
        guard der.count <= maximumBytes else {
            throw Diagnostic.codeSign(.malformed, "the signed message is \(der.count) bytes, more than the \(maximumBytes) accepted")
        }
        LibCryptoErrors.clear()
        guard let cms = LibCrypto.decode(der, { d2i_CMS_ContentInfo(nil, $0, $1) }) else {
            LibCryptoErrors.clear()
            throw Diagnostic.codeSign(.malformed, "not a CMS SignedData (\(der.count) bytes of something else)")
        }
        defer { CMS_ContentInfo_free(cms) }
        let signerInfo = try checkShape(cms)

        let carried = CMS_get1_certs(cms)
        defer { if let carried { shim_sk_X509_pop_free(carried) } }
        let count = LibCrypto.certificates(carried).count
        guard count <= maximumCertificates else {
            throw Diagnostic.codeSign(
                .malformed, "the signed message carries \(count) certificates, more than the \(maximumCertificates) accepted")
        }
        _ = CMS_set1_signers_certs(cms, nil, 0)
        LibCryptoErrors.clear()
        var leafPointer: OpaquePointer?
        CMS_SignerInfo_get0_algs(signerInfo, nil, &leafPointer, nil, nil)
        guard let leaf = leafPointer else {
            throw Diagnostic.codeSign(.malformed, "the signed message does not carry its signer's certificate")
        }

        guard let store = X509_STORE_new() else { throw Diagnostic.codeSign("libcrypto could not allocate") }
        defer { X509_STORE_free(store) }
        try configure(store, anchors: anchors, ignoreExpiry: ignoreExpiry, now: now)
        let chain = try verifyChain(leaf, untrusted: carried, store: store)

        guard let output = BIO_new(BIO_s_mem()) else { throw Diagnostic.codeSign("libcrypto could not allocate") }
        defer { BIO_free(output) }
        guard CMS_verify(cms, nil, store, nil, output, UInt32(CMS_BINARY)) == 1 else {
            throw Diagnostic.codeSign(.signatureInvalid, "signature does not verify: \(LibCryptoErrors.drain())")
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = shim_BIO_get_mem_data(output, &data)
        let content = data.map { Array(UnsafeRawBufferPointer(start: $0, count: max(0, length))) } ?? []
        let signature = LibCrypto.bytes(CMS_SignerInfo_get0_signature(signerInfo))
        let signer = CertificateInfo(leaf)
        return SignedDataReport(
            content: content, signer: signer,
            signerIssuer: CertificateInfo.entry(X509_get_issuer_name(leaf), NID_commonName) ?? signer.issuer,
            chain: chain, signatureDigest: Digest.sha256(signature))
    }

    /// Checks that `cms` is a SignedData of id-data with its content attached and exactly one signer; returns the signer.
    private static func checkShape(_ cms: OpaquePointer) throws -> OpaquePointer {
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else {
            throw Diagnostic.codeSign(.malformed, "not a CMS SignedData (a CMS \(LibCrypto.oid(CMS_get0_type(cms))))")
        }
        guard OBJ_obj2nid(CMS_get0_eContentType(cms)) == NID_pkcs7_data else {
            throw Diagnostic.codeSign(.malformed, "the SignedData's content is not data (\(LibCrypto.oid(CMS_get0_eContentType(cms))))")
        }
        guard let content = CMS_get0_content(cms)?.pointee else {
            throw Diagnostic.codeSign(.malformed, "the SignedData is detached: it does not carry the content it signs")
        }
        guard ASN1_STRING_length(content) > 0 else { throw Diagnostic.codeSign(.malformed, "the SignedData's content is empty") }
        let signers = CMS_get0_SignerInfos(cms)
        let count = signers.map { Int(shim_sk_CMS_SignerInfo_num($0)) } ?? 0
        guard count == 1, let signers, let signer = shim_sk_CMS_SignerInfo_value(signers, 0) else {
            throw Diagnostic.codeSign(.malformed, "the SignedData has \(count) signers, not exactly one")
        }
        return signer
    }

    /// Puts the anchors in `store`, with purpose any, partial chains, the time to check at (or none), and
    /// the callback that lets Apple's own critical extensions through.
    private static func configure(_ store: OpaquePointer, anchors: TrustAnchors, ignoreExpiry: Bool, now: Date?) throws {
        for anchor in anchors.certificates {
            guard let x509 = LibCrypto.decode(anchor.der, { d2i_X509(nil, $0, $1) }) else {
                LibCryptoErrors.clear()
                throw Diagnostic.codeSign(.malformed, "an anchor is not DER X.509: \(anchor.displayName)", file: anchors.file)
            }
            defer { X509_free(x509) }
            // X509_STORE_add_cert takes its own reference; a repeated anchor is not an error in OpenSSL 3.
            guard X509_STORE_add_cert(store, x509) == 1 else {
                throw Diagnostic.codeSign(
                    .malformed, "libcrypto refused the anchor \(anchor.displayName): \(LibCryptoErrors.drain())", file: anchors.file)
            }
        }
        var flags = UInt(X509_V_FLAG_PARTIAL_CHAIN)
        if ignoreExpiry { flags |= UInt(X509_V_FLAG_NO_CHECK_TIME) }
        guard X509_STORE_set_flags(store, flags) == 1, X509_STORE_set_purpose(store, X509_PURPOSE_ANY) == 1 else {
            throw Diagnostic.codeSign("libcrypto could not set up the chain check: \(LibCryptoErrors.drain())")
        }
        if let now, !ignoreExpiry, let parameters = X509_STORE_get0_param(store) {
            X509_VERIFY_PARAM_set_time(parameters, time_t(now.timeIntervalSince1970))
        }
        X509_STORE_set_verify_cb(store, CertificateChain.allowAppleCriticalExtensions)
    }

    /// Verifies `leaf`'s chain through `untrusted` to an anchor of `store`; returns the chain, or throws
    /// why not, naming the certificate that failed.
    private static func verifyChain(_ leaf: OpaquePointer, untrusted: OpaquePointer?, store: OpaquePointer) throws -> [CertificateInfo] {
        guard let context = X509_STORE_CTX_new() else { throw Diagnostic.codeSign("libcrypto could not allocate") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else {
            throw Diagnostic.codeSign("libcrypto could not set up the chain check: \(LibCryptoErrors.drain())")
        }
        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            let failing = X509_STORE_CTX_get_current_cert(context).map(CertificateInfo.init) ?? CertificateInfo(leaf)
            LibCryptoErrors.clear()
            switch code {
            case X509_V_ERR_CERT_HAS_EXPIRED:
                let date = failing.notAfter.map { PlistDate($0).iso8601 } ?? "an unreadable date"
                throw Diagnostic.codeSign(.expired, "certificate \"\(failing.displayName)\" expired on \(date)")
            case X509_V_ERR_CERT_NOT_YET_VALID:
                let date = failing.notBefore.map { PlistDate($0).iso8601 } ?? "an unreadable date"
                throw Diagnostic.codeSign(.expired, "certificate \"\(failing.displayName)\" is not valid before \(date)")
            default:
                let reason = String(cString: X509_verify_cert_error_string(Int(code)))
                throw Diagnostic.codeSign(
                    .signerUntrusted,
                    "device certificate not issued by a trusted anchor: \"\(failing.displayName)\": \(reason)")
            }
        }
        return LibCrypto.certificates(X509_STORE_CTX_get0_chain(context)).map(CertificateInfo.init)
    }
}
