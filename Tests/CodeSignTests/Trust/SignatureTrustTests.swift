import CodeSign
import Foundation
import TestSupport
import Testing

/// The trust checks on every real fixture: CMS, attributes, signer in profile, team ids,
/// entitlements, the profile's CMS, and the chain to Apple's pinned root.
@Suite(Fixtures.enabled) struct SignatureTrustTests {
    static let fastlane = "fastlane_very-capable-app_dev-xcode9.ipa"

    @Test func everyFixtureVerifiesWithoutAnchorAndEverySignatureAttributeMatches() throws {
        let cases = try TrustCase.all()
        // 10 ipas, 21 binaries, 34 signed slices.
        #expect(cases.count == 34)
        var withFullHashes = 0, withoutPlist = 0, sha1Signers = 0
        for item in cases {
            let report = item.evaluate()
            // The fastlane publisher re-signed code and profile with one self-signed 'TestFixture' certificate,
            // consistently (signer in the profile, team 'TestFixture' everywhere but the CodeDirectory, which
            // has no team id): without --anchor apple nothing differs.
            #expect(report.problems.isEmpty, "\(item): \(report.problems)")
            let cms = try #require(report.cms, "\(item)")
            #expect(cms.verifies)
            #expect(cms.contentType == "1.2.840.113549.1.7.1")
            // The signer digests with SHA-256 unless every CodeDirectory is SHA-1 (Xcode 6's signatures).
            let onlySHA1 = item.signature.codeDirectories.allSatisfy { $0.hashType == .sha1 }
            #expect(cms.digestType == (onlySHA1 ? .sha1 : .sha256), "\(item)")
            if onlySHA1 { sha1Signers += 1 }
            let primary = try #require(item.signature.blob(SignatureSlot.codeDirectory))
            #expect(cms.messageDigest == Digest.hash(onlySHA1 ? .sha1 : .sha256, primary))
            // The 100.9.1 plist binds every CodeDirectory; signers before Xcode 7.3 wrote none (one directory).
            if let listed = cms.cdhashesPlist {
                #expect(listed == item.signature.codeDirectories.map { $0.cdhash() }, "\(item)")
            } else {
                withoutPlist += 1
                #expect(item.signature.codeDirectories.count == 1, "\(item)")
            }
            if let full = cms.cdhashes {
                withFullHashes += 1
                #expect(full.count == item.signature.codeDirectories.count)
            }
            #expect(cms.signingTime != nil)
            if let profile = report.profile {
                #expect(profile.verifies)
                #expect(profile.developerCertificates.contains(cms.signer.der))
                #expect(profile.teamIdentifiers == [cms.signer.organizationalUnit ?? ""])
                // Every fixture's profile has expired by now: an install problem, never a seal problem.
                #expect(report.installProblems.contains { $0.kind == .profileExpired }, "\(item)")
            }
            let atSigning = SignatureTrustVerifier.verify(
                bundlePath: item.code.bundle, signature: item.signature, profileData: item.profile, bundleIdentifier: item.bundleIdentifier,
                anchorApple: false, now: try #require(cms.signingTime))
            #expect(atSigning.installProblems.isEmpty, "\(item): \(atSigning.installProblems)")
        }
        // The Xcode 10-era and later fixtures (Demo, its appex, Test, Permissions' 3 slices, BitBar) carry
        // 1.2.840.113635.100.9.2; the Xcode 6.3 ones (SimpleSaucyApp and its 9 dylibs, 2 slices each) sign
        // with SHA-1 and write no 100.9.1 plist.
        #expect(withFullHashes == 7)
        #expect(withoutPlist == 20)
        #expect(sha1Signers == 20)
    }

    @Test func anchorApplePassesForAppleSignedFixturesAndFailsForTheSelfSignedOne() throws {
        for item in try TrustCase.all() {
            let report = item.evaluate(anchorApple: true)
            #expect(report.problems.isEmpty, "\(item): \(report.problems)")
            let problems = report.installProblems.filter { $0.kind == .anchorNotApple }.map(\.message)
            if item.ipa == Self.fastlane {
                #expect(
                    problems == [
                        "anchor apple: signer \"TestFixture\": the chain does not end in Apple Root CA: no certificate with its SHA-256 "
                            + "fingerprint b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024 is present",
                        "anchor apple: embedded.mobileprovision signer \"TestFixture\": the chain does not end in Apple Root CA: no "
                            + "certificate with its SHA-256 fingerprint b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024 is present"
                    ])
            } else {
                #expect(problems.isEmpty, "\(item): \(problems)")
            }
        }
    }

    @Test func theSignerIsReadAsOpenSSLPrintsIt() throws {
        let item = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        let cms = try #require(item.evaluate().cms)
        #expect(cms.signer.commonName == "Apple Development: Qin Junru (CSBXB8DEZA)")
        #expect(cms.signer.organizationalUnit == "GC6FQHF5NF")
        #expect(cms.signer.sha1Hex == "4c3a34b8873be76a8c13112e8e01a2f742c34ec4")
        #expect(cms.signer.sha256Hex == "62c46a184d43da9db885fbf2566f37403c5f7f842aae20f071d31000d7c5f7e1")
        #expect(cms.signer.notAfter == Date(timeIntervalSince1970: 1_650_172_227))  // Apr 17 05:10:27 2022 GMT
        #expect(cms.signingTime == Date(timeIntervalSince1970: 1_620_543_583))  // May  9 06:59:43 2021 GMT
        #expect(cms.certificates.count == 3)
        let root = try #require(cms.certificates.first { $0.commonName == "Apple Root CA" })
        #expect(root.sha256 == CertificateChain.appleRootCASHA256)
    }

    @Test func anAdHocSignatureHasNothingToTrustButFailsTheAnchor() throws {
        let item = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        var directory = try #require(item.signature.codeDirectory)
        directory.flags |= CodeDirectory.Flag.adhoc
        let adHoc = try item.signature.replacing(SignatureSlot.codeDirectory, with: directory.bytes())
            .replacing(SignatureSlot.signature, with: CMSBlob(cms: []).bytes())
        let report = item.evaluate(signature: adHoc)
        #expect(report.isAdHoc)
        #expect(report.problems.isEmpty)
        #expect(
            item.evaluate(anchorApple: true, signature: adHoc).installProblems == [
                TrustFinding(.anchorNotApple, "anchor apple: the signature is ad-hoc, with no certificate chain to Apple Root CA")
            ])
    }
}
