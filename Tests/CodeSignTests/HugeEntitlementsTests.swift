import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Issue 31: a signature whose entitlements hold a million keys the profile does not grant is reported
/// in a few lines, not a line per key (a million lines of standard error), and its entitlements are
/// parsed once, not once per check.
@Suite(Fixtures.enabled) struct HugeEntitlementsTests {
    @Test func aMillionUngrantedEntitlementsAreCountedNotListed() throws {
        let item = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        var entitlements = try #require(try item.signature.entitlements?.entitlements().dictionaryValue)
        for index in 0..<1_000_000 { entitlements.append("com.example.key\(index)", .bool(true)) }
        let blob = try EntitlementsBlob.xml(.dictionary(entitlements)).bytes()
        #expect(blob.count > 20_000_000)
        let signature = try item.signature.replacing(SignatureSlot.entitlements, with: blob)
            .replacing(SignatureSlot.derEntitlements, with: nil)
        let start = Date()
        let report = item.evaluate(signature: signature)
        let elapsed = Date().timeIntervalSince(start)
        // A bound far above one parse of the blob (seconds in a debug build), far below a line per key.
        #expect(elapsed < 120, "\(elapsed) s")
        #expect(report.problems.isEmpty, "\(report.problems.prefix(3))")
        let ungranted = report.installProblems.filter { $0.contains("not granted") || $0.contains("does not grant") }
        #expect(ungranted.count == 11, "\(ungranted.count) lines")
        #expect(ungranted.last == "and 999990 more entitlements the profile does not grant", "\(ungranted.suffix(2))")
        #expect(report.installProblems.count < 20)
    }
}
