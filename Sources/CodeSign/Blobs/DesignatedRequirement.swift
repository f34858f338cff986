import SystemSupport

/// The designated requirement Apple's signer writes for an iOS signing identity, built from the code's
/// identifier and the signer's certificate chain (leaf first, root last, as
/// ``RequirementContext/chain(from:among:)`` orders it):
///
/// - a chain that ends in Apple Root CA through an intermediate marked as Apple's iPhone developer CA
///   (extension 1.2.840.113635.100.6.2.1):
///   `identifier "<id>" and anchor apple generic and certificate leaf[subject.CN] = "<leaf CN>" and
///   certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */`;
/// - any other chain (a certificate Apple did not issue): `identifier "<id>" and certificate root = H"<SHA-1 of the root>"`.
///
/// The `and`s nest to the right, as Apple's requirement compiler writes them.
public enum DesignatedRequirement {
    /// 1.2.840.113635.100.6.2.1, the extension marking Apple's iPhone developer intermediate CA (DER body bytes).
    public static let appleIPhoneDeveloperCAOID: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x63, 0x64, 0x06, 0x02, 0x01]

    /// The designated requirement for code named `identifier` signed by the leaf of `chain`.
    ///
    /// Throws a one-line error for an empty chain, or an Apple chain this form does not describe (an
    /// intermediate without the iPhone developer marker, or a leaf without a common name).
    public static func expression(identifier: String, chain: [CertificateInfo]) throws -> RequirementExpression {
        guard let leaf = chain.first, let root = chain.last else {
            throw Diagnostic.codeSign(.identityInvalid, "the signer's certificate chain is empty", location: "designated requirement")
        }
        let identity = RequirementExpression.identifier(Array(identifier.utf8))
        guard root.sha256 == CertificateChain.appleRootCASHA256 else {
            return .and(identity, .anchorHash(slot: RequirementExpression.anchorSlot, hash: root.sha1))
        }
        guard chain.count >= 3, chain[1].hasExtension(oid: appleIPhoneDeveloperCAOID) else {
            throw Diagnostic.codeSign(
                .identityInvalid,
                "the chain of \"\(leaf.displayName)\" ends in Apple Root CA but not through Apple's iPhone developer CA (1.2.840.113635.100.6.2.1)",
                location: "designated requirement")
        }
        guard let commonName = leaf.commonName else {
            throw Diagnostic.codeSign(
                .identityInvalid, "the signing certificate \(leaf.subject) has no common name", location: "designated requirement")
        }
        let leafName = RequirementExpression.certificateField(
            slot: RequirementExpression.leafSlot, field: Array("subject.CN".utf8), match: .equal(Array(commonName.utf8)))
        let marker = RequirementExpression.certificateGeneric(slot: 1, oid: appleIPhoneDeveloperCAOID, match: .exists)
        return .and(identity, .and(.anchorAppleGeneric, .and(leafName, marker)))
    }

    /// The requirement set holding only the designated requirement, as Apple's signer writes it.
    public static func requirementSet(identifier: String, chain: [CertificateInfo]) throws -> RequirementSet {
        RequirementSet([(RequirementSet.Kind.designated, Requirement(try expression(identifier: identifier, chain: chain)))])
    }

    /// The requirement set for code named `identifier` signed by `signature`'s signer, its chain read
    /// from the certificates the signature carries.
    public static func requirementSet(identifier: String, signature: CodeSignatureCMS) throws -> RequirementSet {
        try requirementSet(identifier: identifier, chain: RequirementContext.chain(from: signature.signer, among: signature.certificates))
    }
}
