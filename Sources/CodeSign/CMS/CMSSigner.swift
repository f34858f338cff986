import CLibCrypto
import Foundation
import SystemSupport

/// Makes the CMS signature of a code signature as Apple's signer does, with libcrypto's CMS API: a
/// detached SignedData over the primary CodeDirectory's bytes, SHA-256, the signer's certificate and the
/// chain (a DER SET OF, so ordered by encoding, as in Apple's signatures), and the signed attributes contentType (id-data), signingTime, messageDigest and Apple's
/// two cdhash attributes, which bind every CodeDirectory (primary and alternates) to the signature.
///
/// RSA keys sign with PKCS#1 v1.5 and the signer's signatureAlgorithm reads sha256WithRSAEncryption, as
/// Apple writes it; EC keys sign with ECDSA with SHA-256. No SMIMECapabilities attribute is added.
///
/// The signed attributes are a DER SET OF too, so they come out in Apple's order (contentType, signingTime,
/// messageDigest, 100.9.2, 100.9.1), and so do the values of 100.9.2 (the SHA-1 entry before the SHA-256 one).
///
/// What cannot be matched: Apple writes the outer layers with indefinite (BER) lengths, libcrypto writes DER.
public enum CMSSigner {
    /// Signs `codeDirectories` (each CodeDirectory blob's bytes, the primary first, then the alternates in
    /// slot order) with `identity`, stamping `signingTime`; returns the DER CMS for the signature slot's wrapper.
    public static func sign(codeDirectories: [[UInt8]], identity: SigningIdentity, signingTime: Date) throws -> [UInt8] {
        guard let primary = codeDirectories.first else {
            throw Diagnostic.codeSign("nothing to sign: no CodeDirectory", location: "CMS signature")
        }
        let directories = try codeDirectories.map { (directory: try CodeDirectory(bytes: $0), bytes: $0) }
        let plist = cdhashesPlist(directories.map { Array(Digest.hash($0.directory.hashType, $0.bytes).prefix(20)) })
        let fullHashes = try directories.map { try fullCDHashDER(type: $0.directory.hashType, bytes: $0.bytes) }

        LibCryptoErrors.clear()
        var certificates: [OpaquePointer] = []
        defer { for certificate in certificates { X509_free(certificate) } }
        for info in [identity.certificate] + identity.chain {
            guard let x509 = LibCrypto.decode(info.der, { d2i_X509(nil, $0, $1) }) else { throw failure("cannot read certificate") }
            certificates.append(x509)
        }
        guard let stack = shim_sk_X509_new_null() else { throw failure("cannot allocate") }
        defer { shim_sk_X509_free(stack) }
        for certificate in certificates.dropFirst() where shim_sk_X509_push(stack, certificate) <= 0 { throw failure("cannot allocate") }

        let flags = UInt32(CMS_PARTIAL | CMS_DETACHED | CMS_BINARY | CMS_NOSMIMECAP)
        guard let cms = CMS_sign(nil, nil, stack, nil, flags) else { throw failure("cannot start a SignedData") }
        defer { CMS_ContentInfo_free(cms) }
        guard let signer = CMS_add1_signer(cms, certificates[0], identity.key.pointer, EVP_sha256(), flags) else {
            throw failure("cannot add the signer")
        }
        if case .rsa = identity.key.kind {
            // libcrypto names the algorithm rsaEncryption; Apple names the digest with it, and either verifies.
            var algorithm: UnsafeMutablePointer<X509_ALGOR>?
            CMS_SignerInfo_get0_algs(signer, nil, nil, nil, &algorithm)
            guard let algorithm, X509_ALGOR_set0(algorithm, OBJ_nid2obj(NID_sha256WithRSAEncryption), V_ASN1_NULL, nil) == 1 else {
                throw failure("cannot set the signature algorithm")
            }
        }
        try addSigningTime(signer, signingTime)
        try plist.withUnsafeBufferPointer { buffer in
            guard
                CMS_signed_add1_attr_by_txt(
                    signer, CodeSignatureCMS.cdhashesPlistOID, V_ASN1_OCTET_STRING, buffer.baseAddress, Int32(buffer.count)) == 1
            else { throw failure("cannot add the cdhashes plist attribute") }
        }
        try addCDHashes(signer, fullHashes)

        let finished = primary.withUnsafeBytes { buffer -> Bool in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return false }
            defer { BIO_free(bio) }
            return CMS_final(cms, bio, nil, UInt32(CMS_DETACHED | CMS_BINARY)) == 1
        }
        guard finished else { throw failure("cannot sign the CodeDirectory") }
        guard let out = LibCrypto.encode({ i2d_CMS_ContentInfo(cms, $0) }) else { throw failure("cannot encode the SignedData") }
        return out
    }

    /// The 1.2.840.113635.100.9.1 attribute's value: the XML plist Apple writes, `cdhashes` listing the
    /// 20-byte cdhash of every CodeDirectory in signature order, with Apple's tabs and line breaks.
    public static func cdhashesPlist(_ cdhashes: [[UInt8]]) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>cdhashes</key>
            \t<array>

            """
        for hash in cdhashes {
            text += "\t\t<data>\n\t\t\(Data(hash).base64EncodedString())\n\t\t</data>\n"
        }
        text += "\t</array>\n</dict>\n</plist>\n"
        return Array(text.utf8)
    }

    /// One value of the 1.2.840.113635.100.9.2 attribute, DER-encoded by libcrypto:
    /// `SEQUENCE { OBJECT IDENTIFIER hash, OCTET STRING full digest of the CodeDirectory }`.
    public static func fullCDHashDER(type: HashType, bytes: [UInt8]) throws -> [UInt8] {
        let full: HashType = type == .sha256Truncated ? .sha256 : type
        let digest = Digest.hash(full, bytes)
        guard let sequence = shim_sk_ASN1_TYPE_new_null() else { throw failure("cannot allocate") }
        defer { shim_sk_ASN1_TYPE_pop_free(sequence) }
        guard let oid = ASN1_TYPE_new() else { throw failure("cannot allocate") }
        guard shim_sk_ASN1_TYPE_push(sequence, oid) > 0 else {
            ASN1_TYPE_free(oid)
            throw failure("cannot allocate")
        }
        guard let object = OBJ_txt2obj(LibCrypto.oid(of: full), 1) else { throw failure("unknown hash algorithm") }
        ASN1_TYPE_set(oid, V_ASN1_OBJECT, UnsafeMutableRawPointer(object))
        guard let octets = ASN1_TYPE_new() else { throw failure("cannot allocate") }
        guard shim_sk_ASN1_TYPE_push(sequence, octets) > 0 else {
            ASN1_TYPE_free(octets)
            throw failure("cannot allocate")
        }
        guard let string = ASN1_OCTET_STRING_new() else { throw failure("cannot allocate") }
        guard ASN1_OCTET_STRING_set(string, digest, Int32(digest.count)) == 1 else {
            ASN1_OCTET_STRING_free(string)
            throw failure("cannot allocate")
        }
        ASN1_TYPE_set(octets, V_ASN1_OCTET_STRING, UnsafeMutableRawPointer(string))
        guard let out = LibCrypto.encode({ i2d_ASN1_SEQUENCE_ANY(sequence, $0) }) else { throw failure("cannot encode a cdhash") }
        return out
    }

    private static func addSigningTime(_ signer: OpaquePointer, _ date: Date) throws {
        guard let time = ASN1_TIME_set(nil, time_t(date.timeIntervalSince1970.rounded(.down))) else {
            throw failure("cannot encode the signing time")
        }
        defer { ASN1_TIME_free(time) }
        guard CMS_signed_add1_attr_by_NID(signer, NID_pkcs9_signingTime, Int32(time.pointee.type), time, -1) == 1 else {
            throw failure("cannot add the signing time")
        }
    }

    /// Adds the 1.2.840.113635.100.9.2 attribute: one SEQUENCE value per CodeDirectory.
    private static func addCDHashes(_ signer: OpaquePointer, _ values: [[UInt8]]) throws {
        guard let object = OBJ_txt2obj(CodeSignatureCMS.cdhashesOID, 1) else { throw failure("cannot allocate") }
        defer { ASN1_OBJECT_free(object) }
        guard let attribute = X509_ATTRIBUTE_create_by_OBJ(nil, object, 0, nil, 0) else { throw failure("cannot allocate") }
        defer { X509_ATTRIBUTE_free(attribute) }
        for value in values {
            let added = value.withUnsafeBufferPointer {
                X509_ATTRIBUTE_set1_data(attribute, V_ASN1_SEQUENCE, $0.baseAddress, Int32($0.count))
            }
            guard added == 1 else { throw failure("cannot add a cdhash") }
        }
        guard CMS_signed_add1_attr(signer, attribute) == 1 else { throw failure("cannot add the cdhashes attribute") }
    }

    private static func failure(_ what: String) -> Diagnostic {
        Diagnostic.codeSign("\(what): \(LibCryptoErrors.drain())", location: "CMS signature")
    }
}
