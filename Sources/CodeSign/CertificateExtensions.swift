import CLibCrypto

extension CertificateInfo {
    /// Whether the certificate has an extension with the object identifier whose DER body (the bytes
    /// after tag and length, as a compiled requirement stores it) is `oid`.
    public func hasExtension(oid: [UInt8]) -> Bool {
        guard !oid.isEmpty, oid.count < 128 else { return false }
        let encoded = [0x06, UInt8(oid.count)] + oid
        guard let object = LibCrypto.decode(encoded, { d2i_ASN1_OBJECT(nil, $0, $1) }) else {
            LibCrypto.clearErrors()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        guard let certificate = LibCrypto.decode(der, { d2i_X509(nil, $0, $1) }) else {
            LibCrypto.clearErrors()
            return false
        }
        defer { X509_free(certificate) }
        return X509_get_ext_by_OBJ(certificate, object, -1) >= 0
    }
}
