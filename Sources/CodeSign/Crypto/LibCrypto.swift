import CLibCrypto
import Foundation

/// Small helpers over libcrypto's C API, used inside one function each: every OpenSSL object they
/// touch is owned by the caller, and nothing here keeps a pointer.
enum LibCrypto {
    /// The bytes of an ASN1_STRING (OCTET STRING, INTEGER, UTCTime, …).
    static func bytes(_ string: UnsafePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    /// An ASN1_TIME (UTCTime or GeneralizedTime) as a date, or nil when it does not parse.
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// The dotted text of an object identifier (`1.2.840.113635.100.9.1`).
    static func oid(_ object: OpaquePointer?) -> String {
        guard let object else { return "" }
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0 else { return "" }
        return String(decoding: buffer.prefix(min(Int(length), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The hash type of a digest algorithm's object identifier, or nil for one a CodeDirectory cannot use.
    static func hashType(oid: String) -> HashType? {
        switch oid {
        case "1.3.14.3.2.26": return .sha1
        case "2.16.840.1.101.3.4.2.1": return .sha256
        case "2.16.840.1.101.3.4.2.2": return .sha384
        default: return nil
        }
    }

    /// The object identifier text libcrypto uses for `type`'s full digest.
    static func oid(of type: HashType) -> String {
        switch type {
        case .sha1: return "1.3.14.3.2.26"
        case .sha256, .sha256Truncated: return "2.16.840.1.101.3.4.2.1"
        case .sha384: return "2.16.840.1.101.3.4.2.2"
        }
    }

    /// Parses DER bytes with a `d2i_…` function; nil unless every byte was used.
    static func decode(_ bytes: [UInt8], _ d2i: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?) -> OpaquePointer? {
        bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let object = d2i(&cursor, buffer.count) else { return nil }
            return object
        }
    }

    /// Encodes with an `i2d_…` function, called once for the length and once to write; nil when it
    /// cannot encode.
    static func encode(_ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = i2d(nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d(&cursor)
        }
        return out
    }

    /// The DER encoding of a certificate.
    static func der(_ certificate: OpaquePointer) -> [UInt8] {
        encode { i2d_X509(certificate, $0) } ?? []
    }

    /// The certificates of PEM text, in order; other PEM blocks are skipped, and the error queue is emptied.
    static func pemCertificates(_ bytes: [UInt8]) -> [CertificateInfo] {
        let certificates = bytes.withUnsafeBytes { buffer -> [CertificateInfo] in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return [] }
            defer { BIO_free(bio) }
            var out: [CertificateInfo] = []
            while let x509 = PEM_read_bio_X509(bio, nil, nil, nil) {
                out.append(CertificateInfo(x509))
                X509_free(x509)
            }
            return out
        }
        LibCryptoErrors.clear()
        return certificates
    }

    /// The certificates of a `STACK_OF(X509)`, in order (not owned).
    static func certificates(_ stack: OpaquePointer?) -> [OpaquePointer] {
        guard let stack else { return [] }
        return (0..<max(0, shim_sk_X509_num(stack))).compactMap { shim_sk_X509_value(stack, $0) }
    }

    /// The signer's first signed attribute `oid`, or nil.
    private static func firstSignedAttribute(_ signer: OpaquePointer, oid: String) -> OpaquePointer? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = CMS_signed_get_attr_by_OBJ(signer, object, -1)
        return index >= 0 ? CMS_signed_get_attr(signer, index) : nil
    }

    /// The values of the signed attribute `oid` of a signer, or nil when the signer has no such attribute.
    static func signedAttribute(_ signer: OpaquePointer, oid: String) -> [UnsafeMutablePointer<ASN1_TYPE>]? {
        guard let attribute = firstSignedAttribute(signer, oid: oid) else { return nil }
        return (0..<max(0, X509_ATTRIBUTE_count(attribute))).compactMap { X509_ATTRIBUTE_get0_type(attribute, $0) }
    }

    /// The DER of the signer's first signed attribute `oid` (`SEQUENCE { OID, SET OF values }`), or nil.
    static func signedAttributeDER(_ signer: OpaquePointer, oid: String) -> [UInt8]? {
        guard let attribute = firstSignedAttribute(signer, oid: oid) else { return nil }
        return encode { i2d_X509_ATTRIBUTE(attribute, $0) }
    }

    /// How many times the signer carries the signed attribute `oid`.
    static func signedAttributeCount(_ signer: OpaquePointer, oid: String) -> Int {
        guard let object = OBJ_txt2obj(oid, 1) else { return 0 }
        defer { ASN1_OBJECT_free(object) }
        var count = 0
        var last: Int32 = -1
        while case let index = CMS_signed_get_attr_by_OBJ(signer, object, last), index >= 0 {
            count += 1
            last = index
        }
        return count
    }
}
