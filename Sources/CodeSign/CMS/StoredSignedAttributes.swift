import CLibCrypto

/// The signed attributes of a CMS SignedData's one SignerInfo, as the message stores them.
///
/// RFC 5652 §5.4 says the signature covers the DER of the `SignedAttributes` SET, which the message
/// stores as the `[0] IMPLICIT` field of the SignerInfo: the stored bytes with the tag byte made
/// `0x31`. libcrypto re-encodes the attributes before checking the signature, which sorts every SET OF
/// into DER order; Apple's Xcode 10–11 signers stored the values of the 1.2.840.113635.100.9.2
/// attribute unsorted (the SHA-256 entry before the SHA-1 one) and signed them that way, so only the
/// stored bytes verify. This finds them; it decodes nothing else.
enum StoredSignedAttributes {
    /// What the SignerInfo holds.
    enum Found: Equatable {
        /// The SignerInfo has no signed attributes: the signature covers the content itself.
        case none
        /// The bytes the signature covers (the stored field with its tag made SET).
        case attributes([UInt8])
        /// The message is not laid out as a ContentInfo with SignedData and one SignerInfo (one line).
        case malformed(String)
    }

    /// Walks `cms` (DER, or BER with indefinite lengths) as `ContentInfo { contentType, [0] SignedData
    /// { …, signerInfos SET { SignerInfo { version, sid, digestAlgorithm, [0] signedAttrs OPTIONAL,
    /// signatureAlgorithm, signature, … } } } }` and returns the signed attributes of the one SignerInfo.
    static func find(in cms: [UInt8]) -> Found {
        cms.withUnsafeBufferPointer { bytes -> Found in
            guard let contentInfo = BERElement.read(bytes, at: 0, limit: bytes.count), contentInfo.isUniversal(V_ASN1_SEQUENCE),
                let outer = contentInfo.children(bytes), outer.count == 2, outer[1].isContext(0)
            else { return .malformed("CMS is not a ContentInfo with explicit content") }
            guard let wrapped = outer[1].children(bytes), wrapped.count == 1, wrapped[0].isUniversal(V_ASN1_SEQUENCE),
                let signedData = wrapped[0].children(bytes), signedData.count >= 4, let signerInfos = signedData.last,
                signerInfos.isUniversal(V_ASN1_SET)
            else { return .malformed("CMS content is not SignedData ending in a SET of SignerInfos") }
            guard let signers = signerInfos.children(bytes), signers.count == 1, signers[0].isUniversal(V_ASN1_SEQUENCE),
                let fields = signers[0].children(bytes), fields.count >= 5
            else { return .malformed("CMS does not hold exactly one SignerInfo SEQUENCE") }
            let field = fields[3]
            guard field.isContext(0) else { return .none }
            guard !field.isIndefinite, bytes[field.start] == 0xA0 else {
                return .malformed("CMS signed attributes are not stored with a definite length")
            }
            var covered = Array(bytes[field.start..<field.end])
            covered[0] = 0x31
            return .attributes(covered)
        }
    }
}
