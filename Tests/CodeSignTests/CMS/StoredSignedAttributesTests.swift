import Foundation
import TestSupport
import Testing

@testable import CodeSign

/// The signer's signature checked over the signed attributes exactly as the CMS stores them. Every
/// fixture slice verifies; for the Xcode 11 fixture whose 1.2.840.113635.100.9.2 values are stored
/// unsorted, `openssl` shows the signature is valid over the stored bytes and invalid over libcrypto's
/// DER re-encoding (so `CMS_verify` rejects it), and this package's check agrees on both.
@Suite(Fixtures.enabled) struct StoredSignedAttributesTests {
    static let unsorted = "iosdevicemanager_Permissions_dev_unsorted-agility_armv7+arm64.ipa"

    @Test func everySliceOfEveryFixtureVerifiesOverItsStoredSignedAttributes() throws {
        var unsortedSlices = 0
        for item in try TrustCase.all() {
            let der = try #require(item.signature.signature).cms
            let cms = try CodeSignatureCMS(cms: der, content: try #require(item.signature.blob(SignatureSlot.codeDirectory)))
            #expect(cms.verifies, "\(item): \(cms.verificationFailure ?? "")")
            #expect(cms.hasSignedAttributes, "\(item)")
            guard case .attributes(let stored) = StoredSignedAttributes.find(in: der) else {
                Issue.record("\(item): no stored signed attributes found")
                continue
            }
            #expect(stored.first == 0x31, "\(item)")
            if item.ipa == Self.unsorted { unsortedSlices += 1 }
        }
        #expect(unsortedSlices == 3)
    }

    @Test func opensslShowsTheUnsortedFixtureIsSignedOverItsStoredAttributesAndNotTheirReencoding() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed for the oracle")
        let items = try TrustCase.all().filter { $0.ipa == Self.unsorted }
        #expect(items.count == 3)
        try withTemporaryFolder { folder in
            for item in items {
                let der = try #require(item.signature.signature).cms
                let content = try #require(item.signature.blob(SignatureSlot.codeDirectory))
                let cmsPath = try folder.write("cms.der", Data(der))
                let contentPath = try folder.write("cd.bin", Data(content))
                // libcrypto's own check, which re-encodes the attributes first, rejects this valid signature.
                let cmsVerify = try ProcessResult.run(
                    openssl,
                    [
                        "cms", "-verify", "-binary", "-noverify", "-inform", "DER", "-in", cmsPath, "-content", contentPath, "-out",
                        "/dev/null"
                    ])
                #expect(cmsVerify.status != 0 && cmsVerify.stderrText.contains("bad signature"), "\(item): \(cmsVerify.stderrText)")

                // The stored attributes and signature where asn1parse puts them, and libcrypto's re-encoding of the CMS.
                let parsed = try OpenSSLASN1Parse(openssl: openssl, path: cmsPath)
                var stored = try #require(parsed.signedAttributes?.bytes(in: der), "\(item)")
                stored[0] = 0x31
                let signature = try #require(parsed.signatureValue?.content(in: der), "\(item)")
                #expect(StoredSignedAttributes.find(in: der) == .attributes(stored), "\(item)")
                let sortedPath = folder.path("sorted.der")
                let reencode = try ProcessResult.run(
                    openssl, ["cms", "-cmsout", "-inform", "DER", "-in", cmsPath, "-outform", "DER", "-out", sortedPath])
                #expect(reencode.status == 0, "\(reencode.stderrText)")
                let sortedDER = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sortedPath)))
                let reparsed = try OpenSSLASN1Parse(openssl: openssl, path: sortedPath)
                var sorted = try #require(reparsed.signedAttributes?.bytes(in: sortedDER), "\(item)")
                sorted[0] = 0x31
                #expect(reparsed.signatureValue?.content(in: sortedDER) == signature, "\(item): the re-encoding keeps the signature")
                // The same bytes in another order: the SET OF of 100.9.2 sorted.
                #expect(sorted != stored && sorted.sorted() == stored.sorted(), "\(item)")

                // Which carried certificate's key verifies which bytes, per `openssl dgst -verify`.
                let cms = try CodeSignatureCMS(cms: der, content: content)
                #expect(cms.digestType == .sha256)
                let signaturePath = try folder.write("signature.bin", Data(signature))
                let storedPath = try folder.write("stored.bin", Data(stored))
                let sortedAttributesPath = try folder.write("sorted.bin", Data(sorted))
                var overStored: [[UInt8]] = []
                var overSorted: [[UInt8]] = []
                for certificate in try Self.certificates(openssl, cmsPath, folder) {
                    let verify = { (path: String) in
                        try ProcessResult.run(
                            openssl, ["dgst", "-sha256", "-verify", certificate.key, "-signature", signaturePath, path]
                        ).status == 0
                    }
                    if try verify(storedPath) { overStored.append(certificate.der) }
                    if try verify(sortedAttributesPath) { overSorted.append(certificate.der) }
                }
                #expect(overStored == [cms.signer.der], "\(item): the signer's key verifies the stored attributes")
                #expect(overSorted.isEmpty, "\(item): no key verifies the re-encoded attributes")

                // This package's check agrees on both.
                #expect(cms.verifies, "\(item): \(cms.verificationFailure ?? "")")
                let overReencoded = try CodeSignatureCMS(cms: sortedDER, content: content)
                #expect(
                    overReencoded.verificationFailure?.hasPrefix("the signature is not valid over the signed attributes as stored") == true,
                    "\(item): \(overReencoded.verificationFailure ?? "verifies")")
            }
        }
    }

    /// Every certificate the CMS at `cmsPath` carries, as DER and the path of its public key (PEM).
    static func certificates(_ openssl: String, _ cmsPath: String, _ folder: TemporaryFolder) throws -> [(der: [UInt8], key: String)] {
        let printed = try ProcessResult.run(openssl, ["pkcs7", "-inform", "DER", "-in", cmsPath, "-print_certs"]).stdoutText
        let blocks = printed.components(separatedBy: "-----END CERTIFICATE-----").compactMap { block in
            block.range(of: "-----BEGIN CERTIFICATE-----").map { String(block[$0.lowerBound...]) + "-----END CERTIFICATE-----\n" }
        }
        #expect(!blocks.isEmpty)
        return try blocks.enumerated().map { index, pem in
            let pemPath = try folder.write("certificate\(index).pem", pem)
            let derPath = folder.path("certificate\(index).der")
            let key = try ProcessResult.run(openssl, ["x509", "-in", pemPath, "-pubkey", "-noout"])
            let der = try ProcessResult.run(openssl, ["x509", "-in", pemPath, "-outform", "DER", "-out", derPath])
            guard key.status == 0, der.status == 0 else { throw SetupFailure("openssl x509 failed: \(key.stderrText)\(der.stderrText)") }
            let keyPath = try folder.write("key\(index).pem", key.stdoutText)
            return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: derPath))), keyPath)
        }
    }

    @Test func aByteChangedInTheStoredAttributesOrTheSignatureValueFailsVerification() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed to find the bytes")
        let unsortedSlice = try #require(try TrustCase.all().first { $0.ipa == Self.unsorted })
        let sortedSlice = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        try withTemporaryFolder { folder in
            for item in [unsortedSlice, sortedSlice] {
                let der = try #require(item.signature.signature).cms
                let content = try #require(item.signature.blob(SignatureSlot.codeDirectory))
                let parsed = try OpenSSLASN1Parse(openssl: openssl, path: try folder.write("cms.der", Data(der)))
                let original = try CodeSignatureCMS(cms: der, content: content)
                #expect(original.verifies, "\(item)")

                // The last digit of the signing time ("…27Z" becomes "…26Z"): still a time, no longer the one signed.
                let time = try #require(parsed.signingTime)
                let digit = time.offset + time.header + (try #require(time.length)) - 2
                var changedTime = der
                changedTime[digit] ^= 0x01
                let timeChanged = try CodeSignatureCMS(cms: changedTime, content: content)
                #expect(timeChanged.signingTime != nil && timeChanged.signingTime != original.signingTime, "\(item)")
                #expect(
                    timeChanged.verificationFailure?.hasPrefix("the signature is not valid over the signed attributes as stored") == true,
                    "\(item): \(timeChanged.verificationFailure ?? "verifies")")

                // One bit of the signature value.
                let value = try #require(parsed.signatureValue)
                var changedSignature = der
                changedSignature[value.offset + value.header + (try #require(value.length)) / 2] ^= 0x01
                let signatureChanged = try CodeSignatureCMS(cms: changedSignature, content: content)
                #expect(
                    signatureChanged.verificationFailure?.hasPrefix("the signature is not valid over the signed attributes as stored")
                        == true, "\(item): \(signatureChanged.verificationFailure ?? "verifies")")
            }
        }
    }
}
