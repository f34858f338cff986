import CLibCrypto

extension CertificateInfo {
    /// Whether the certificate has an extension with the object identifier whose DER body (the bytes
    /// after tag and length, as a compiled requirement stores it) is `oid`.
    public func hasExtension(oid: [UInt8]) -> Bool {
        guard !oid.isEmpty, oid.count < 128 else { return false }
        let encoded = [0x06, UInt8(oid.count)] + oid
        guard let object = LibCrypto.decode(encoded, { d2i_ASN1_OBJECT(nil, $0, $1) }) else {
            LibCryptoErrors.clear()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        guard let certificate = LibCrypto.decode(der, { d2i_X509(nil, $0, $1) }) else {
            LibCryptoErrors.clear()
            return false
        }
        defer { X509_free(certificate) }
        return X509_get_ext_by_OBJ(certificate, object, -1) >= 0
    }
}

extension CertificateInfo {
    /// The DER body of 1.2.840.113635.100.6.22, the extension Apple's own software-signing
    /// certificates carry ("Software Signing", OU "Apple Software").
    static let appleSoftwareSigningOID: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x63, 0x64, 0x06, 0x16]

    /// Whether this is one of Apple's own software-signing certificates, which sign Apple's code (the
    /// Swift runtime, XCTest) with Apple's team in the CodeDirectory rather than the certificate's OU.
    public var isAppleSoftwareSigning: Bool { hasExtension(oid: CertificateInfo.appleSoftwareSigningOID) }
}
