import Foundation
import IPAKit
import TestSupport
import Testing

@testable import CodeSign

/// Issue 30: code Apple signs with its own software-signing certificate (OU "Apple Software", the
/// Swift runtime in an app's `SwiftSupport/`, XCTest) is judged by its chain, as codesign judges it:
/// its CodeDirectory names Apple's team (59GAB85EFG), which is not the certificate's OU.
@Suite(Fixtures.enabled) struct AppleSignedCodeTests {
    static let ipa = "isign_SimpleSaucyApp_libswift-dylibs_swiftsupport.ipa"

    /// Every slice of the Apple-signed `SwiftSupport/libswift*.dylib` of the isign fixture.
    static func appleSlices() throws -> [(name: String, signature: EmbeddedSignature)] {
        let archive = try ZipArchiveReader(path: Fixtures.url("ipa", ipa).path)
        var out: [(String, EmbeddedSignature)] = []
        for entry in archive.entries where entry.name.hasPrefix("SwiftSupport/") && entry.name.hasSuffix(".dylib") {
            for slice in try MachOFile(data: try archive.data(entry)).slices {
                out.append(("\(entry.name) \(slice.cpu)", try #require(try slice.embeddedSignature())))
            }
        }
        return out
    }

    @Test func applesOwnSwiftRuntimeVerifiesWithAppleAnchorAndTheSoftwareSigningMark() throws {
        let slices = try Self.appleSlices()
        #expect(slices.count == 18)
        for (name, signature) in slices {
            let report = SignatureTrustVerifier.verify(
                bundlePath: name, signature: signature, profileData: nil, bundleIdentifier: nil, anchorApple: true, now: Date())
            #expect(report.problems.isEmpty, "\(name): \(report.problems)")
            // Its chain ends in Apple Root CA; these 2015 signatures carry no signingTime attribute (Apple
            // timestamps its own), so the chain is judged now, when its certificates have expired.
            #expect(
                report.installProblems.allSatisfy { [.anchorNotApple, .expired].contains($0.kind) && $0.message.contains("expired") },
                "\(name): \(report.installProblems)")
            let signer = try #require(report.cms?.signer)
            #expect(signer.organizationalUnit == "Apple Software")
            #expect(signer.isAppleSoftwareSigning)
        }
    }

    @Test func appleSoftwareSigningIsExemptFromTheOUTeamCheckAndADeveloperIsNot() throws {
        let (_, apple) = try #require(try Self.appleSlices().first)
        let appleCMS = try CodeSignatureCMS(cms: try #require(apple.signature).cms, content: [])
        // The CodeDirectory as Apple's current tools write it for XCTest: Apple's own team.
        var directory = try #require(apple.codeDirectory)
        directory.version = max(directory.version, CodeDirectory.Version.teamID)
        directory.teamID = "59GAB85EFG"
        let withTeam = try apple.replacing(SignatureSlot.codeDirectory, with: directory.bytes())
        #expect(SignatureTrustVerifier.teamProblems(withTeam, appleCMS) == [])
        // The same CodeDirectory under a developer's certificate is a mismatch.
        let developer = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        let developerCMS = try CodeSignatureCMS(cms: try #require(developer.signature.signature).cms, content: [])
        #expect(!developerCMS.signer.isAppleSoftwareSigning)
        #expect(
            SignatureTrustVerifier.teamProblems(withTeam, developerCMS) == [
                TrustFinding(.teamMismatch, "team ids differ: signer certificate OU GC6FQHF5NF, CodeDirectory 59GAB85EFG")
            ])
    }
}
