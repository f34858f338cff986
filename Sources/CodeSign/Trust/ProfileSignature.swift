import CLibCrypto
import Foundation
import PlistKit
import SystemSupport

/// A provisioning profile read through its CMS with libcrypto: the signature over the attached plist
/// is verified (without judging the signer's chain; ``CertificateChain`` does that), and the fields
/// the signature checks need are read from the plist it signs.
public struct ProfileSignature: Sendable {
    /// Why the profile's CMS signature does not verify, or nil when it does.
    public var verificationFailure: String?
    /// The profile's signer (Apple's "Apple iPhone OS Provisioning Profile Signing"), if the CMS carries it.
    public var signer: CertificateInfo?
    /// Every certificate the CMS carries.
    public var certificates: [CertificateInfo]
    /// The signed signingTime attribute, or nil.
    public var signingTime: Date?
    /// The profile's Name, or nil.
    public var name: String?
    /// The TeamIdentifier array.
    public var teamIdentifiers: [String]
    /// The DeveloperCertificates: DER certificates allowed to sign code with this profile.
    public var developerCertificates: [[UInt8]]
    /// The Entitlements dictionary, or nil when the profile has none.
    public var entitlements: PlistDictionary?
    public var creationDate: Date?
    public var expirationDate: Date?

    /// Whether the CMS signature verifies over the plist it carries.
    public var verifies: Bool { verificationFailure == nil }

    /// Reads `bytes` (an `embedded.mobileprovision`); throws a one-line error when it is not a CMS
    /// SignedData carrying a property list, read with `limits`.
    public init(bytes: [UInt8], limits: PlistLimits = .default) throws {
        LibCryptoErrors.clear()
        guard let info = LibCrypto.decode(bytes, { d2i_CMS_ContentInfo(nil, $0, $1) }) else {
            throw Diagnostic.codeSign(.malformed, "not a DER CMS (\(bytes.count) bytes): \(LibCryptoErrors.drain())")
        }
        defer { CMS_ContentInfo_free(info) }
        guard OBJ_obj2nid(CMS_get0_type(info)) == NID_pkcs7_signed, let content = CMS_get0_content(info)?.pointee else {
            throw Diagnostic.codeSign(.malformed, "its CMS is not SignedData with the profile attached")
        }
        let payload = LibCrypto.bytes(content)
        guard let output = BIO_new(BIO_s_mem()) else { throw Diagnostic.codeSign("libcrypto could not allocate") }
        defer { BIO_free(output) }
        let flags = UInt32(CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY)
        verificationFailure = CMS_verify(info, nil, nil, nil, output, flags) == 1 ? nil : LibCryptoErrors.drain()
        LibCryptoErrors.clear()

        let stack = CMS_get1_certs(info)
        defer { if let stack { shim_sk_X509_pop_free(stack) } }
        certificates = LibCrypto.certificates(stack).map(CertificateInfo.init)
        if let signers = CMS_get0_SignerInfos(info), shim_sk_CMS_SignerInfo_num(signers) >= 1,
            let signerInfo = shim_sk_CMS_SignerInfo_value(signers, 0)
        {
            _ = CMS_set1_signers_certs(info, nil, 0)
            LibCryptoErrors.clear()
            var certificate: OpaquePointer?
            CMS_SignerInfo_get0_algs(signerInfo, nil, &certificate, nil, nil)
            signer = certificate.map(CertificateInfo.init)
            if let value = LibCrypto.signedAttribute(signerInfo, oid: "1.2.840.113549.1.9.5")?.first,
                [V_ASN1_UTCTIME, V_ASN1_GENERALIZEDTIME].contains(ASN1_TYPE_get(value))
            {
                signingTime = LibCrypto.date(value.pointee.value.utctime)
            }
        }

        let plist: PlistDictionary
        do {
            guard let dictionary = try PropertyList(data: Data(payload), limits: limits).value.dictionaryValue else {
                throw Diagnostic.codeSign(.malformed, "the profile's plist is not a dictionary")
            }
            plist = dictionary
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            throw error
        } catch {
            throw Diagnostic.codeSign(.malformed, "the profile's signed content is not a property list: \(error)")
        }
        name = plist["Name"]?.stringValue
        teamIdentifiers = plist["TeamIdentifier"]?.arrayValue?.compactMap(\.stringValue) ?? []
        developerCertificates =
            plist["DeveloperCertificates"]?.arrayValue?.compactMap { value in
                if case .data(let data) = value { return Array(data) }
                return nil
            } ?? []
        entitlements = plist["Entitlements"]?.dictionaryValue
        creationDate = ProfileSignature.date(plist["CreationDate"])
        expirationDate = ProfileSignature.date(plist["ExpirationDate"])
    }

    private static func date(_ value: PlistValue?) -> Date? {
        if case .date(let date)? = value { return date.date }
        return nil
    }
}
