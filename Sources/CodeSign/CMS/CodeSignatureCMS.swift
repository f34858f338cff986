import CLibCrypto
import Foundation
import PlistKit
import SystemSupport

/// The CMS signature of a code signature, read and checked by libcrypto: a detached SignedData over
/// the primary CodeDirectory, with the signer's certificate, the chain the signer embedded, and the
/// signed attributes Apple's signer writes.
///
/// Reading verifies the signature over the content given (normally the primary CodeDirectory's
/// bytes) without judging the certificates; ``CertificateChain`` does that. libcrypto reads the
/// message, but the signature is checked over the signed attributes' stored bytes, not libcrypto's
/// re-encoding of them (``SignerSignatureVerifier``), since some of Apple's signers stored a SET OF unsorted.
public struct CodeSignatureCMS: Sendable {
    /// Apple's signed attribute holding a plist whose `cdhashes` array lists every CodeDirectory's cdhash.
    public static let cdhashesPlistOID = "1.2.840.113635.100.9.1"
    /// Apple's signed attribute holding `SEQUENCE { hash algorithm, digest }` per CodeDirectory, untruncated.
    public static let cdhashesOID = "1.2.840.113635.100.9.2"

    /// One entry of the 1.2.840.113635.100.9.2 attribute.
    public struct FullCDHash: Sendable, Hashable {
        /// The hash algorithm's object identifier.
        public var algorithm: String
        public var digest: [UInt8]

        public init(algorithm: String, digest: [UInt8]) {
            self.algorithm = algorithm
            self.digest = digest
        }
    }

    /// The signing certificate.
    public var signer: CertificateInfo
    /// Every certificate the CMS carries (the signer's chain as the signer embedded it), in stored order.
    public var certificates: [CertificateInfo]
    /// The signer's digest algorithm (object identifier) and its hash type, if a CodeDirectory can use it.
    public var digestAlgorithm: String
    public var digestType: HashType?
    /// The signed contentType attribute (object identifier text), or nil.
    public var contentType: String?
    /// The signed signingTime attribute, or nil.
    public var signingTime: Date?
    /// The signed messageDigest attribute, or nil.
    public var messageDigest: [UInt8]?
    /// The `cdhashes` array of the 1.2.840.113635.100.9.1 plist, or nil when the attribute is absent.
    public var cdhashesPlist: [[UInt8]]?
    /// The entries of the 1.2.840.113635.100.9.2 attribute, or nil when it is absent.
    public var cdhashes: [FullCDHash]?
    /// The 1.2.840.113635.100.9.1 attribute's plist bytes as stored, or nil.
    public var cdhashesPlistBytes: [UInt8]?
    /// The whole 1.2.840.113635.100.9.2 attribute (`SEQUENCE { OID, SET { … } }`) re-encoded by libcrypto, or nil.
    public var cdhashesAttributeDER: [UInt8]?
    /// Whether the signer has signed attributes; without them the signature covers the content itself,
    /// and there is no contentType, signingTime, messageDigest or cdhash attribute.
    public var hasSignedAttributes: Bool
    /// Why the signature does not verify over the content, or nil when it does: checked over the signed
    /// attributes exactly as stored (see ``StoredSignedAttributes``), whose messageDigest must be the
    /// content's digest, or over the content when there are no signed attributes.
    public var verificationFailure: String?
    /// Problems with the attributes' own form (a plist that does not parse, a malformed entry).
    public var attributeProblems: [String]

    /// Whether the signature verifies over the content it was read with.
    public var verifies: Bool { verificationFailure == nil }

    /// Reads the DER CMS `cms` and verifies it over `content`; throws a one-line error when `cms` is not a
    /// SignedData with exactly one signer whose certificate it carries. The cdhashes plist among its
    /// attributes is read with `limits`.
    public init(cms: [UInt8], content: [UInt8], limits: PlistLimits = .default) throws {
        LibCryptoErrors.clear()
        guard let info = LibCrypto.decode(cms, { d2i_CMS_ContentInfo(nil, $0, $1) }) else {
            throw Diagnostic.codeSign(
                .malformed, "CMS signature is not DER CMS (\(cms.count) bytes): \(LibCryptoErrors.drain())", location: "CMS signature")
        }
        defer { CMS_ContentInfo_free(info) }
        guard OBJ_obj2nid(CMS_get0_type(info)) == NID_pkcs7_signed else {
            throw Diagnostic.codeSign(.malformed, "CMS signature is not SignedData", location: "CMS signature")
        }
        guard let signers = CMS_get0_SignerInfos(info), shim_sk_CMS_SignerInfo_num(signers) == 1,
            let signerInfo = shim_sk_CMS_SignerInfo_value(signers, 0)
        else {
            throw Diagnostic.codeSign(.malformed, "CMS signature does not have exactly one signer", location: "CMS signature")
        }
        _ = CMS_set1_signers_certs(info, nil, 0)
        LibCryptoErrors.clear()
        var signerCertificate: OpaquePointer?
        var digest: UnsafeMutablePointer<X509_ALGOR>?
        CMS_SignerInfo_get0_algs(signerInfo, nil, &signerCertificate, &digest, nil)
        guard let signerCertificate else {
            throw Diagnostic.codeSign(.malformed, "CMS signature does not carry its signer's certificate", location: "CMS signature")
        }
        signer = CertificateInfo(signerCertificate)
        let stack = CMS_get1_certs(info)
        defer { if let stack { shim_sk_X509_pop_free(stack) } }
        certificates = LibCrypto.certificates(stack).map(CertificateInfo.init)

        var algorithm: OpaquePointer?
        if let digest { X509_ALGOR_get0(&algorithm, nil, nil, digest) }
        digestAlgorithm = LibCrypto.oid(algorithm)
        digestType = LibCrypto.hashType(oid: digestAlgorithm)

        let attributes = CodeSignatureCMS.readAttributes(signerInfo, limits: limits)
        contentType = attributes.contentType
        signingTime = attributes.signingTime
        messageDigest = attributes.messageDigest
        cdhashesPlist = attributes.cdhashesPlist
        cdhashes = attributes.cdhashes
        cdhashesPlistBytes = attributes.cdhashesPlistBytes
        cdhashesAttributeDER = attributes.cdhashesAttributeDER
        attributeProblems = attributes.problems

        let stored = StoredSignedAttributes.find(in: cms)
        let signed = SignerSignatureVerifier.Signed(
            digestAlgorithm: algorithm, signatureAlgorithm: CodeSignatureCMS.signatureAlgorithm(signerInfo),
            signature: LibCrypto.bytes(CMS_SignerInfo_get0_signature(signerInfo)), attributes: nil, messageDigest: messageDigest)
        (hasSignedAttributes, verificationFailure) = CodeSignatureCMS.verify(
            signed, stored: stored, libcryptoSeesAttributes: CMS_signed_get_attr_count(signerInfo) >= 0,
            certificate: signerCertificate, content: content)
    }

    /// Checks the signature over the signed attributes as `stored` (or over `content` when there are
    /// none), never over libcrypto's re-encoding of them: whether there are signed attributes, and the
    /// failure or nil.
    private static func verify(
        _ signed: SignerSignatureVerifier.Signed, stored: StoredSignedAttributes.Found, libcryptoSeesAttributes: Bool,
        certificate: OpaquePointer, content: [UInt8]
    ) -> (Bool, String?) {
        var signed = signed
        switch stored {
        case .malformed(let reason):
            return (libcryptoSeesAttributes, reason)
        case .none:
            guard !libcryptoSeesAttributes else { return (true, "libcrypto reads signed attributes where none are stored") }
        case .attributes(let bytes):
            guard libcryptoSeesAttributes else { return (true, "libcrypto reads no signed attributes where some are stored") }
            signed.attributes = bytes
        }
        return (signed.attributes != nil, SignerSignatureVerifier.failure(signed, certificate: certificate, content: content))
    }

    /// The signer's signatureAlgorithm object (owned by the SignerInfo).
    private static func signatureAlgorithm(_ signerInfo: OpaquePointer) -> OpaquePointer? {
        var signature: UnsafeMutablePointer<X509_ALGOR>?
        CMS_SignerInfo_get0_algs(signerInfo, nil, nil, nil, &signature)
        var object: OpaquePointer?
        if let signature { X509_ALGOR_get0(&object, nil, nil, signature) }
        return object
    }

    private struct Attributes {
        var contentType: String?
        var signingTime: Date?
        var messageDigest: [UInt8]?
        var cdhashesPlist: [[UInt8]]?
        var cdhashes: [FullCDHash]?
        var cdhashesPlistBytes: [UInt8]?
        var cdhashesAttributeDER: [UInt8]?
        var problems: [String] = []
    }

    private static func readAttributes(_ signer: OpaquePointer, limits: PlistLimits) -> Attributes {
        var out = Attributes()
        if let values = LibCrypto.signedAttribute(signer, oid: "1.2.840.113549.1.9.3"), let value = values.first,
            ASN1_TYPE_get(value) == V_ASN1_OBJECT
        {
            out.contentType = LibCrypto.oid(value.pointee.value.object)
        }
        if let values = LibCrypto.signedAttribute(signer, oid: "1.2.840.113549.1.9.5"), let value = values.first {
            let type = ASN1_TYPE_get(value)
            if type == V_ASN1_UTCTIME || type == V_ASN1_GENERALIZEDTIME {
                out.signingTime = LibCrypto.date(value.pointee.value.utctime)
            }
            if out.signingTime == nil { out.problems.append("signingTime attribute is not a time") }
        }
        if let values = LibCrypto.signedAttribute(signer, oid: "1.2.840.113549.1.9.4"), let value = values.first,
            ASN1_TYPE_get(value) == V_ASN1_OCTET_STRING
        {
            out.messageDigest = LibCrypto.bytes(value.pointee.value.octet_string)
        }
        if let values = LibCrypto.signedAttribute(signer, oid: cdhashesPlistOID) {
            out.cdhashesPlist = []
            if values.count == 1, ASN1_TYPE_get(values[0]) == V_ASN1_OCTET_STRING {
                let text = LibCrypto.bytes(values[0].pointee.value.octet_string)
                out.cdhashesPlistBytes = text
                if let plist = try? PropertyList(data: Data(text), limits: limits).value,
                    let list = plist.dictionaryValue?["cdhashes"]?.arrayValue
                {
                    out.cdhashesPlist = list.map { value -> [UInt8] in
                        if case .data(let data) = value { return Array(data) }
                        return []
                    }
                    if list.contains(where: { if case .data = $0 { return false } else { return true } }) {
                        out.problems.append("cdhashes plist (\(cdhashesPlistOID)) has an entry that is not data")
                    }
                } else {
                    out.problems.append("cdhashes attribute \(cdhashesPlistOID) is not a plist with a cdhashes array")
                }
            } else {
                out.problems.append("cdhashes attribute \(cdhashesPlistOID) is not one OCTET STRING")
            }
        }
        if let values = LibCrypto.signedAttribute(signer, oid: cdhashesOID) {
            var entries: [FullCDHash] = []
            for value in values {
                if let entry = fullCDHash(value) {
                    entries.append(entry)
                } else {
                    out.problems.append("cdhashes attribute \(cdhashesOID) has an entry that is not SEQUENCE { OID, OCTET STRING }")
                }
            }
            out.cdhashes = entries
            out.cdhashesAttributeDER = LibCrypto.signedAttributeDER(signer, oid: cdhashesOID)
        }
        for oid in ["1.2.840.113549.1.9.3", "1.2.840.113549.1.9.5", "1.2.840.113549.1.9.4", cdhashesPlistOID, cdhashesOID]
        where LibCrypto.signedAttributeCount(signer, oid: oid) > 1 {
            out.problems.append("signed attribute \(oid) appears more than once")
        }
        return out
    }

    /// One `SEQUENCE { OBJECT IDENTIFIER, OCTET STRING }` of the 100.9.2 attribute, decoded by libcrypto.
    private static func fullCDHash(_ value: UnsafeMutablePointer<ASN1_TYPE>) -> FullCDHash? {
        guard ASN1_TYPE_get(value) == V_ASN1_SEQUENCE else { return nil }
        let der = LibCrypto.bytes(value.pointee.value.sequence)
        guard let sequence = LibCrypto.decode(der, { d2i_ASN1_SEQUENCE_ANY(nil, $0, $1) }) else {
            LibCryptoErrors.clear()
            return nil
        }
        defer { shim_sk_ASN1_TYPE_pop_free(sequence) }
        guard shim_sk_ASN1_TYPE_num(sequence) == 2, let first = shim_sk_ASN1_TYPE_value(sequence, 0),
            let second = shim_sk_ASN1_TYPE_value(sequence, 1), ASN1_TYPE_get(first) == V_ASN1_OBJECT,
            ASN1_TYPE_get(second) == V_ASN1_OCTET_STRING
        else { return nil }
        return FullCDHash(algorithm: LibCrypto.oid(first.pointee.value.object), digest: LibCrypto.bytes(second.pointee.value.octet_string))
    }
}
