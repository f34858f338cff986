import CodeSign
import Foundation
import TestSupport
import Testing

/// CMS signatures made by ``CMSSigner`` over the fixtures' CodeDirectories with test identities, checked
/// by this package's reader and checker, by `openssl cms -verify`, and against the fixtures' own attributes.
@Suite(Fixtures.enabled) struct CMSSignerTests {
    /// One signed slice of a fixture: its signature and CodeDirectories' bytes (primary first).
    struct SignedSlice: CustomStringConvertible {
        var description: String
        var signature: EmbeddedSignature
        var directories: [[UInt8]]
        var cms: CodeSignatureCMS
    }

    static func slices() throws -> [SignedSlice] {
        var out: [SignedSlice] = []
        for code in try FixtureCode.all() {
            for slice in try MachOFile(data: code.bytes).slices {
                let signature = try #require(try slice.embeddedSignature())
                let directories = signature.superBlob.entries.filter {
                    $0.type == SignatureSlot.codeDirectory
                        || ($0.type >= SignatureSlot.alternateCodeDirectories && $0.type < SignatureSlot.alternateCodeDirectories + 5)
                }.map(\.bytes)
                let blob = try #require(signature.signature)
                let cms = try CodeSignatureCMS(cms: blob.cms, content: directories[0])
                out.append(SignedSlice(description: "\(code) \(slice.cpu)", signature: signature, directories: directories, cms: cms))
            }
        }
        return out
    }

    static let signingTime = Date(timeIntervalSince1970: 1_700_000_000)

    /// The CodeDirectories' 20-byte cdhashes and full digests, as the attributes should list them.
    static func hashes(_ directories: [[UInt8]]) throws -> (truncated: [[UInt8]], full: [CodeSignatureCMS.FullCDHash]) {
        var truncated: [[UInt8]] = []
        var full: [CodeSignatureCMS.FullCDHash] = []
        for bytes in directories {
            let type = try CodeDirectory(bytes: bytes).hashType
            truncated.append(Array(Digest.hash(type, bytes).prefix(20)))
            let fullType: HashType = type == .sha256Truncated ? .sha256 : type
            full.append(
                .init(algorithm: fullType == .sha1 ? "1.3.14.3.2.26" : "2.16.840.1.101.3.4.2.1", digest: Digest.hash(fullType, bytes)))
        }
        return (truncated, full)
    }

    @Test func signaturesOverEveryFixtureSliceVerifyAndCarryEveryCDHash() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identities = try [made.rsa, made.ec, made.leafWithCA].map {
                try SigningIdentity(p12: $0, password: .file(made.passwordFile))
            }
            let slices = try Self.slices()
            #expect(slices.count == 34)
            for slice in slices {
                for identity in identities {
                    let place = "\(slice) \(identity.certificate.displayName)"
                    let der = try CMSSigner.sign(codeDirectories: slice.directories, identity: identity, signingTime: Self.signingTime)
                    let cms = try CodeSignatureCMS(cms: der, content: slice.directories[0])
                    #expect(cms.verifies, "\(place): \(cms.verificationFailure ?? "")")
                    #expect(cms.signer == identity.certificate, "\(place)")
                    // The certificates are a DER SET OF, so libcrypto orders them by encoding, as Apple's signer does.
                    let carried = cms.certificates.map(\.sha256Hex)
                    #expect(carried.count == identity.chain.count + 1, "\(place)")
                    #expect(Set(carried) == Set((identity.chain + [identity.certificate]).map(\.sha256Hex)), "\(place): signer and chain")
                    #expect(
                        cms.certificates.map(\.der) == cms.certificates.map(\.der).sorted { $0.lexicographicallyPrecedes($1) }, "\(place)")
                    #expect(cms.digestAlgorithm == "2.16.840.1.101.3.4.2.1", "\(place)")
                    #expect(cms.contentType == "1.2.840.113549.1.7.1", "\(place)")
                    #expect(cms.signingTime == Self.signingTime, "\(place)")
                    #expect(cms.messageDigest == Digest.sha256(slice.directories[0]), "\(place)")
                    let expected = try Self.hashes(slice.directories)
                    #expect(cms.cdhashesPlist == expected.truncated, "\(place)")
                    #expect(cms.cdhashes.map(Set.init(_:)) == Set(expected.full), "\(place)")
                    #expect(cms.attributeProblems.isEmpty, "\(place)")
                    // Over other bytes it does not verify.
                    var other = slice.directories[0]
                    other[other.count - 1] ^= 1
                    #expect(try !CodeSignatureCMS(cms: der, content: other).verifies, "\(place)")

                    // The signature rebuilt with the new CMS passes the checker.
                    let entries = slice.signature.superBlob.entries.map { entry in
                        entry.type == SignatureSlot.signature ? SuperBlob.Entry(type: entry.type, bytes: CMSBlob(cms: der).bytes()) : entry
                    }
                    let rebuilt = try EmbeddedSignature(bytes: SuperBlob(magic: BlobMagic.embeddedSignature, entries: entries).bytes())
                    let result = CodeSignatureCMSVerifier.verify(rebuilt)
                    #expect(result.problems.isEmpty, "\(place): \(result.problems)")
                    #expect(!result.isAdHoc)
                }
            }
        }
    }

    @Test func opensslCMSVerifyAcceptsTheSignatureAndRejectsOtherBytes() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is not on PATH")
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            // The Xcode 9 fixture has two CodeDirectories and a SHA-1 primary; the Xcode 12 one a single SHA-256.
            let slices = try Self.slices().filter { $0.description.contains("xcode9") || $0.description.contains("xcode12") }
            #expect(slices.count == 2)
            for slice in slices {
                for path in [made.rsa, made.ec] {
                    let identity = try SigningIdentity(p12: path, password: .file(made.passwordFile))
                    let der = try CMSSigner.sign(codeDirectories: slice.directories, identity: identity, signingTime: Self.signingTime)
                    let cms = try folder.write("cms.der", Data(der))
                    let content = try folder.write("cd.bin", Data(slice.directories[0]))
                    var tampered = slice.directories[0]
                    tampered[20] ^= 0x40
                    let other = try folder.write("other.bin", Data(tampered))
                    let arguments = ["cms", "-verify", "-binary", "-noverify", "-inform", "DER", "-in", cms, "-out", "/dev/null"]
                    let good = try ProcessResult.run(openssl, arguments + ["-content", content])
                    #expect(good.status == 0, "\(slice) \(path): \(good.stderrText)")
                    let bad = try ProcessResult.run(openssl, arguments + ["-content", other])
                    #expect(bad.status != 0, "\(slice) \(path): other bytes verified")
                    // The layout Apple's signer writes: no SMIMECapabilities, RSA named sha256WithRSAEncryption.
                    let printed = try ProcessResult.run(openssl, ["cms", "-cmsout", "-print", "-inform", "DER", "-in", cms]).stdoutText
                    #expect(!printed.contains("SMIME Capabilities") && !printed.contains("smimeCapabilities"), "\(slice)")
                    #expect(printed.contains(path == made.rsa ? "sha256WithRSAEncryption" : "ecdsa-with-SHA256"), "\(slice)")
                    #expect(printed.contains("eContent: <ABSENT>"), "\(slice): detached")
                    // The signed attributes in the order the fixture's own CMS has them (the Xcode 9 signer predates 100.9.2).
                    let theirs = try folder.write("theirs.der", Data(try #require(slice.signature.signature).cms))
                    let original = try ProcessResult.run(openssl, ["cms", "-cmsout", "-print", "-inform", "DER", "-in", theirs]).stdoutText
                    let names = Self.signedAttributeNames(printed)
                    let originalNames = Self.signedAttributeNames(original)
                    #expect(
                        originalNames.count == 5 ? names == originalNames : names.filter { !$0.contains("100.9.2") } == originalNames,
                        "\(slice)")
                    #expect(Self.signedAttributeNames(printed).count == 5, "\(slice)")
                }
            }
        }
    }

    /// The `object:` lines of `openssl cms -cmsout -print`'s signedAttrs section, in order.
    static func signedAttributeNames(_ printed: String) -> [String] {
        let lines = printed.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = lines.firstIndex(of: "signedAttrs:") else { return [] }
        let end = lines[start...].firstIndex { $0.hasPrefix("signatureAlgorithm:") } ?? lines.endIndex
        return lines[start..<end].filter { $0.hasPrefix("object:") }
    }

    @Test func apples100_9_1PlistAnd100_9_2AttributeAreReproducedByteForByte() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            var plists = 0
            var fullHashes = 0
            for slice in try Self.slices() {
                let der = try CMSSigner.sign(codeDirectories: slice.directories, identity: identity, signingTime: Self.signingTime)
                let ours = try CodeSignatureCMS(cms: der, content: slice.directories[0])
                if let theirs = slice.cms.cdhashesPlistBytes, let listed = slice.cms.cdhashesPlist {
                    #expect(CMSSigner.cdhashesPlist(listed) == theirs, "\(slice): plist from the fixture's cdhashes")
                    #expect(ours.cdhashesPlistBytes == theirs, "\(slice): plist from the CodeDirectories")
                    plists += 1
                }
                // Apple's signer orders the certificates by their encoding too (a DER SET OF), as libcrypto does.
                let apple = slice.cms.certificates.map(\.der)
                #expect(apple == apple.sorted { $0.lexicographicallyPrecedes($1) }, "\(slice): certificate order")
                if let theirs = slice.cms.cdhashesAttributeDER {
                    #expect(ours.cdhashesAttributeDER == theirs, "\(slice): 100.9.2 attribute")
                    fullHashes += 1
                }
            }
            // Every slice signed since Xcode 7.3 has the plist (Xcode 6.3's 20 have none); the Xcode 10-era and
            // later ones the 100.9.2 attribute as well.
            #expect(plists == 14)
            #expect(fullHashes == 7)
        }
    }
}
