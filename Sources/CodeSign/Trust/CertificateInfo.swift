import CLibCrypto
import Foundation
import SystemSupport

/// What a check needs to know about one X.509 certificate, read by libcrypto: names, serial,
/// fingerprints, validity, and the DER bytes themselves.
public struct CertificateInfo: Sendable, Equatable {
    /// The certificate's DER bytes.
    public var der: [UInt8]
    /// The subject's common name (`Apple Development: Jane Doe (ABCDE12345)`), or nil.
    public var commonName: String?
    /// The subject's organizational unit: the team id in Apple's signing certificates.
    public var organizationalUnit: String?
    /// The subject's organization, or nil.
    public var organization: String?
    /// The subject as one line (`/C=US/O=Apple Inc./CN=Apple Root CA`).
    public var subject: String
    /// The issuer as one line.
    public var issuer: String
    /// The serial number in lower-case hexadecimal.
    public var serial: String
    public var notBefore: Date?
    public var notAfter: Date?

    /// The SHA-1 of the DER bytes (the fingerprint Keychain Access shows).
    public var sha1: [UInt8] { Digest.sha1(der) }
    /// The SHA-256 of the DER bytes.
    public var sha256: [UInt8] { Digest.sha256(der) }
    /// The SHA-1 fingerprint in lower-case hexadecimal.
    public var sha1Hex: String { sha1.hexString }
    /// The SHA-256 fingerprint in lower-case hexadecimal.
    public var sha256Hex: String { sha256.hexString }
    /// The common name, else the subject: how messages name the certificate.
    public var displayName: String { commonName ?? subject }

    /// Whether the certificate has expired at `date` (or is not valid yet).
    public func isOutsideValidity(at date: Date) -> Bool {
        if let notAfter, date > notAfter { return true }
        if let notBefore, date < notBefore { return true }
        return false
    }

    /// Reads a DER certificate.
    public init(der: [UInt8]) throws {
        guard let certificate = LibCrypto.decode(der, { d2i_X509(nil, $0, $1) }) else {
            LibCryptoErrors.clear()
            throw Diagnostic.codeSign(.malformed, "not a DER X.509 certificate (\(der.count) bytes)")
        }
        defer { X509_free(certificate) }
        self.init(certificate)
    }

    /// Reads the certificate libcrypto holds at `certificate` (not freed here).
    init(_ certificate: OpaquePointer) {
        der = LibCrypto.der(certificate)
        let name = X509_get_subject_name(certificate)
        commonName = CertificateInfo.entry(name, NID_commonName)
        organizationalUnit = CertificateInfo.entry(name, NID_organizationalUnitName)
        organization = CertificateInfo.entry(name, NID_organizationName)
        subject = CertificateInfo.oneLine(name)
        issuer = CertificateInfo.oneLine(X509_get_issuer_name(certificate))
        serial = LibCrypto.bytes(X509_get0_serialNumber(certificate)).hexString
        notBefore = LibCrypto.date(X509_get0_notBefore(certificate))
        notAfter = LibCrypto.date(X509_get0_notAfter(certificate))
    }

    /// The first `nid` entry of a name, as UTF-8.
    static func entry(_ name: OpaquePointer?, _ nid: Int32) -> String? {
        guard let name else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&out, data)
        guard length >= 0, let out else { return nil }
        defer { shim_OPENSSL_free(out) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    private static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name, let text = X509_NAME_oneline(name, nil, 0) else { return "" }
        defer { shim_OPENSSL_free(text) }
        return String(cString: text)
    }
}
