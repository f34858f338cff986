import CodeSign
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Each tampering with a fixture's signature or profile is caught and named, in one line, never a trap.
@Suite(Fixtures.enabled) struct SignatureTrustTamperTests {
    func fixture(_ ipa: String, cpu: String? = nil) throws -> TrustCase {
        try #require(try TrustCase.all().first { $0.ipa == ipa && (cpu == nil || $0.cpu == cpu) })
    }

    @Test func aChangedPrimaryCodeDirectoryBreaksTheCMSTheDigestAndTheCdhashes() throws {
        let item = try fixture("ipa-server_Test_dev-xcode12.ipa")
        var bytes = try #require(item.signature.blob(SignatureSlot.codeDirectory))
        bytes[bytes.count - 1] ^= 0x01  // the last code page hash
        let report = item.evaluate(signature: try item.signature.replacing(SignatureSlot.codeDirectory, with: bytes))
        #expect(report.problems.count == 4, "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.kind == .signatureUntrusted })
        #expect(report.problems[0].message.hasPrefix("CMS signature does not verify over the CodeDirectory: "))
        #expect(report.problems[1].message.hasPrefix("CMS signature: messageDigest 34c1d1dafcfc8414"))
        #expect(
            report.problems[2].message.hasPrefix(
                "CMS signature: cdhashes plist (1.2.840.113635.100.9.1) lists 34c1d1dafcfc8414b88664db52f29ead2f700730,"))
        #expect(report.problems[3].message.hasPrefix("CMS signature: cdhashes attribute (1.2.840.113635.100.9.2) lists"))
    }

    @Test func aChangedAlternateCodeDirectoryIsCaughtByTheCdhashesPlistAlone() throws {
        let item = try fixture("ipa_analyzer_ios-simple-objc_dev.ipa", cpu: "arm64")
        let slot = SignatureSlot.alternateCodeDirectories
        var bytes = try #require(item.signature.blob(slot))
        bytes[bytes.count - 1] ^= 0x01
        let problems = item.evaluate(signature: try item.signature.replacing(slot, with: bytes)).problems
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.kind == .signatureUntrusted)
        #expect(problems.first?.message.hasPrefix("CMS signature: cdhashes plist (1.2.840.113635.100.9.1) lists ") == true)
    }

    @Test func aCMSOverOtherBytesDoesNotVerify() throws {
        let item = try fixture("app_info_embedded_enterprise-appex.ipa")
        let cms = try #require(item.signature.signature).cms
        let good = try CodeSignatureCMS(cms: cms, content: try #require(item.signature.blob(SignatureSlot.codeDirectory)))
        #expect(good.verifies)
        let bad = try CodeSignatureCMS(cms: cms, content: Array("other bytes".utf8))
        #expect(bad.verificationFailure?.isEmpty == false)
        // Another bundle's CMS in this signature: the signature, digest and cdhashes all disagree.
        let other = try fixture("ipa-server_Test_dev-xcode12.ipa")
        let swapped = try item.signature.replacing(SignatureSlot.signature, with: try #require(other.signature.signature).bytes())
        let report = item.evaluate(signature: swapped)
        #expect(
            report.problems.first?.message.hasPrefix("CMS signature does not verify over the CodeDirectory") == true, "\(report.problems)")
        // The other bundle's signer is not in this bundle's profile: iOS would refuse it too.
        #expect(
            report.installProblems.contains {
                $0.kind == .certificateNotInProfile
                    && $0.message.hasPrefix("signer \"Apple Development: Qin Junru (CSBXB8DEZA)\" (SHA-1 4c3a34b8")
            })
    }

    @Test(arguments: [0, 1, 100, 1000])
    func aTruncatedCMSIsOneLine(keep: Int) throws {
        let item = try fixture("ipa-server_Test_dev-xcode12.ipa")
        let cms = try #require(item.signature.signature).cms
        let cut = try item.signature.replacing(SignatureSlot.signature, with: CMSBlob(cms: Array(cms.prefix(keep))).bytes())
        let problems = item.evaluate(signature: cut).problems
        if keep == 0 {
            #expect(
                problems == [
                    TrustFinding(.signatureUntrusted, "the signature has no CMS signature, but its CodeDirectory is not marked ad-hoc")
                ])
        } else {
            #expect(problems.count == 1, "\(problems)")
            #expect(problems.first?.message.hasPrefix("CMS signature is not DER CMS (\(keep) bytes): ") == true, "\(problems)")
            #expect(problems.allSatisfy { !$0.message.contains("\n") })
        }
    }

    @Test func garbageCMSIsOneLine() throws {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 7, 64, 4096] {
            let garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            expectCodeSign(.malformed) { try CodeSignatureCMS(cms: garbage, content: []) }
            expectCodeSign(.malformed) { try ProfileSignature(bytes: garbage) }
        }
        // A valid CMS whose content is not a plist, and a DER certificate where a CMS should be.
        expectCodeSign(.malformed) { try CertificateInfo(der: [0x30, 0x03, 0x02, 0x01, 0x00]) }
    }

    @Test func aProfileWithOneByteChangedFailsItsCMSAndOpenSSLAgrees() throws {
        let item = try fixture("ipa-server_Test_dev-xcode12.ipa")
        var profile = try #require(item.profile)
        let marker = Array("<key>UUID</key>".utf8)
        let at = try #require(profile.indices.first { profile[$0..<min($0 + marker.count, profile.count)].elementsEqual(marker) })
        let value = try #require(profile[(at + marker.count)...].firstIndex(of: UInt8(ascii: ">"))) + 1
        profile[value] = profile[value] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let report = item.evaluate(profile: .some(profile))
        #expect(report.problems.isEmpty, "\(report.problems)")
        let problems = report.installProblems.filter { $0.kind != .expired && $0.kind != .profileExpired }
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.kind == .profileUntrusted)
        #expect(problems.first?.message.hasPrefix("embedded.mobileprovision: its CMS signature does not verify: ") == true)
        if let openssl = ProcessResult.which("openssl") {
            try withTemporaryFolder { folder in
                let good = try folder.write("good.mobileprovision", Data(try #require(item.profile)))
                let bad = try folder.write("bad.mobileprovision", Data(profile))
                let verify = { (path: String) in
                    try ProcessResult.run(
                        openssl, ["smime", "-verify", "-inform", "der", "-noverify", "-in", path, "-out", folder.path("out")]
                    ).status
                }
                #expect(try verify(good) == 0)
                #expect(try verify(bad) != 0)
            }
        }
    }

    @Test func aSignerNotInTheProfileIsNamedWithTheTeamsAndEntitlements() throws {
        let item = try fixture("ipa-server_Test_dev-xcode12.ipa")
        let other = try fixture("app_info_embedded_enterprise-appex.ipa")
        let report = item.evaluate(profile: .some(other.profile))
        // The seal holds; the profile is another team's, which only the installer judges.
        #expect(report.problems.isEmpty, "\(report.problems)")
        let problems = report.installProblems.filter { $0.kind != .expired && $0.kind != .profileExpired }
        #expect(
            problems.map(\.kind) == [.certificateNotInProfile, .teamMismatch] + Array(repeating: .entitlementsNotGranted, count: 4))
        #expect(
            problems.map(\.message) == [
                "signer \"Apple Development: Qin Junru (CSBXB8DEZA)\" (SHA-1 4c3a34b8873be76a8c13112e8e01a2f742c34ec4) is not one of the "
                    + "profile's 2 DeveloperCertificates (\"iPhone Distribution: Niceliving Beijing Technology Co. Ltd.\", "
                    + "\"iPhone Distribution: Niceliving Beijing Technology Co. Ltd.\")",
                "team ids differ: signer certificate OU GC6FQHF5NF, CodeDirectory GC6FQHF5NF, profile TeamIdentifier 72LA85G59H, "
                    + "profile application-identifier prefix 72LA85G59H",
                "entitlement application-identifier is GC6FQHF5NF.com.ineva.test-rtmp.Test, the profile's is 72LA85G59H.com.icyleaf.test.Demo",
                "entitlement com.apple.developer.team-identifier is \"GC6FQHF5NF\", the profile's is \"72LA85G59H\"",
                "entitlement get-task-allow is true, but the profile does not allow debugging (get-task-allow false)",
                "entitlement keychain-access-groups is [\"GC6FQHF5NF.com.ineva.test-rtmp.Test\"], the profile allows "
                    + "[\"72LA85G59H.*\", \"com.apple.token\"]"
            ], "\(problems)")
    }

    @Test func differingDERAndXMLEntitlementsAreNamed() throws {
        let item = try fixture("ipa-server_Test_dev-xcode12.ipa")
        var entitlements = try #require(try item.signature.entitlements?.entitlements().dictionaryValue)
        entitlements.append("com.example.extra", .bool(true))
        let der = try EntitlementsBlob.der(.dictionary(entitlements))
        let problems = item.evaluate(signature: try item.signature.replacing(SignatureSlot.derEntitlements, with: der.bytes())).problems
        #expect(
            problems == [TrustFinding(.entitlementsMismatch, "the DER entitlements differ from the XML entitlements in com.example.extra")])
    }
}
