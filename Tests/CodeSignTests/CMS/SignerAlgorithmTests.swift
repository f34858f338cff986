import CodeSign
import Foundation
import TestSupport
import Testing

/// The signer's signatureAlgorithm must fit its key and digest: a fixture's `rsaEncryption` rewritten
/// (one byte of the OID, found with `openssl asn1parse`) to the combined algorithm with the same digest
/// still verifies; one naming another digest, another key type or parameters this check does not read
/// (RSASSA-PSS) is refused in one line.
@Suite(Fixtures.enabled) struct SignerAlgorithmTests {
    @Test(
        arguments: [
            (11, nil),  // sha256WithRSAEncryption
            (
                5,
                "the signature algorithm sha1WithRSAEncryption (1.2.840.113549.1.1.5) does not use the signer's digest algorithm sha256 (2.16.840.1.101.3.4.2.1)"
            ),
            (10, "the signature algorithm rsassaPss (1.2.840.113549.1.1.10) is not one this check supports"),
            (7, "the signature algorithm rsaesOaep (1.2.840.113549.1.1.7) does not fit the signer's rsaEncryption key")
        ] as [(UInt8, String?)])
    func theSignatureAlgorithmMustFitTheKeyAndDigest(last: UInt8, failure: String?) throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed to find the bytes")
        let item = try #require(try TrustCase.all().first { $0.ipa == StoredSignedAttributesTests.unsorted })
        let der = try #require(item.signature.signature).cms
        let content = try #require(item.signature.blob(SignatureSlot.codeDirectory))
        try withTemporaryFolder { folder in
            let parsed = try OpenSSLASN1Parse(openssl: openssl, path: try folder.write("cms.der", Data(der)))
            let attributes = try #require(parsed.signedAttributes)
            let oid = try #require(parsed.lines.first { $0.offset > attributes.offset && $0.text.hasSuffix(":rsaEncryption") })
            let at = oid.offset + oid.header + (try #require(oid.length)) - 1
            #expect(der[at] == 1)
            var changed = der
            changed[at] = last
            let cms = try CodeSignatureCMS(cms: changed, content: content)
            #expect(cms.verificationFailure == failure)
        }
    }
}
