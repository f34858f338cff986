import CodeSign
import Foundation
import TestSupport
import Testing

/// CMS signatures without signed attributes (RFC 5652 allows them; some of Apple's own XPC services
/// carry them), made by `openssl cms -sign -noattr` with throwaway RSA and EC keys over a fixture's
/// CodeDirectory: the signature covers the CodeDirectory itself, and the checks do not call the
/// signature broken for lacking the attributes.
@Suite(Fixtures.enabled) struct UnattributedCMSTests {
    /// A throwaway self-signed certificate and key made by `openssl req` in `folder`.
    struct Signer {
        var certificate: String
        var key: String

        init(_ openssl: String, _ folder: TemporaryFolder, kind: String) throws {
            certificate = folder.path("\(kind).crt")
            key = folder.path("\(kind).key")
            let algorithm = kind == "ec" ? ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"] : ["-newkey", "rsa:2048"]
            let made = try ProcessResult.run(
                openssl,
                ["req", "-x509", "-nodes", "-days", "30", "-subj", "/CN=Unattributed \(kind)", "-keyout", key, "-out", certificate]
                    + algorithm)
            guard made.status == 0 else { throw SetupFailure("openssl req failed: \(made.stderrText)") }
        }

        /// A DER CMS over the file at `content` with no signed attributes; detached unless `embedded`.
        func sign(_ openssl: String, _ content: String, _ folder: TemporaryFolder, embedded: Bool = false) throws -> [UInt8] {
            let out = folder.path("noattr.der")
            let made = try ProcessResult.run(
                openssl,
                [
                    "cms", "-sign", "-binary", "-noattr", "-md", "sha256", "-in", content, "-signer", certificate, "-inkey", key,
                    "-outform", "DER", "-out", out
                ]
                    + (embedded ? ["-nodetach"] : []))
            guard made.status == 0 else { throw SetupFailure("openssl cms -sign failed: \(made.stderrText)") }
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        }
    }

    /// A fixture slice with one CodeDirectory, and one with alternates.
    static func slices() throws -> (single: TrustCase, dual: TrustCase) {
        let all = try TrustCase.all()
        return (
            try #require(all.first { $0.signature.codeDirectories.count == 1 }),
            try #require(all.first { $0.signature.codeDirectories.count > 1 })
        )
    }

    @Test(arguments: ["rsa", "ec"]) func theSignatureCoversTheContentItself(kind: String) throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed to sign")
        let item = try Self.slices().single
        let content = try #require(item.signature.blob(SignatureSlot.codeDirectory))
        var other = content
        other[other.count - 1] ^= 0x01
        try withTemporaryFolder { folder in
            let signer = try Signer(openssl, folder, kind: kind)
            let contentPath = try folder.write("cd.bin", Data(content))
            let otherPath = try folder.write("other.bin", Data(other))
            let der = try signer.sign(openssl, contentPath, folder)
            // openssl's view: no signed attributes (no contentType attribute to find), valid over the content only.
            let cmsPath = try folder.write("cms.der", Data(der))
            #expect(try OpenSSLASN1Parse(openssl: openssl, path: cmsPath).signedAttributes == nil)
            let verify = { (path: String) in
                try ProcessResult.run(
                    openssl,
                    ["cms", "-verify", "-binary", "-noverify", "-inform", "DER", "-in", cmsPath, "-content", path, "-out", "/dev/null"]
                ).status == 0
            }
            #expect(try verify(contentPath))
            #expect(try !verify(otherPath))

            let cms = try CodeSignatureCMS(cms: der, content: content)
            #expect(cms.verifies, "\(cms.verificationFailure ?? "")")
            #expect(!cms.hasSignedAttributes && cms.messageDigest == nil && cms.contentType == nil && cms.signingTime == nil)
            let overOther = try CodeSignatureCMS(cms: der, content: other)
            #expect(
                overOther.verificationFailure?.hasPrefix("the signature is not valid over the content (there are no signed attributes)")
                    == true, "\(overOther.verificationFailure ?? "verifies")")
            // With the content embedded too, the signature is still checked over the content given.
            let embedded = try signer.sign(openssl, contentPath, folder, embedded: true)
            #expect(try CodeSignatureCMS(cms: embedded, content: content).verifies)
            #expect(try !CodeSignatureCMS(cms: embedded, content: other).verifies)
        }
    }

    @Test func theChecksAskForNoMessageDigestWithoutSignedAttributes() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed to sign")
        let (single, dual) = try Self.slices()
        try withTemporaryFolder { folder in
            let signer = try Signer(openssl, folder, kind: "rsa")
            let signed = { (item: TrustCase, content: [UInt8]) throws -> EmbeddedSignature in
                let der = try signer.sign(openssl, try folder.write("content.bin", Data(content)), folder)
                return try item.signature.replacing(SignatureSlot.signature, with: CMSBlob(cms: der).bytes())
            }
            let directory = try #require(single.signature.blob(SignatureSlot.codeDirectory))
            let good = CodeSignatureCMSVerifier.verify(try signed(single, directory))
            #expect(good.problems.isEmpty, "\(good.problems)")
            #expect(good.cms?.hasSignedAttributes == false && !good.isAdHoc)
            // Over other bytes: the one problem is the signature, not a missing messageDigest.
            let bad = CodeSignatureCMSVerifier.verify(try signed(single, Array("other bytes".utf8)))
            #expect(bad.problems.count == 1, "\(bad.problems)")
            #expect(
                bad.problems.first?.hasPrefix(
                    "CMS signature does not verify over the CodeDirectory: the signature is not valid over the content") == true)
            // With alternate CodeDirectories nothing binds the alternates: that, and only that, is reported.
            let primary = try #require(dual.signature.blob(SignatureSlot.codeDirectory))
            let alternates = CodeSignatureCMSVerifier.verify(try signed(dual, primary))
            #expect(alternates.problems.count == 1, "\(alternates.problems)")
            #expect(alternates.problems.first?.hasPrefix("CMS signature has no cdhashes plist attribute (1.2.840.113635.100.9.1)") == true)
        }
    }
}
