import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Issue 31: a signature whose entitlements hold a great many keys the profile does not grant (the
/// hostile case had a million, a 24 MB blob) is reported in a few lines, not a line per key. 100,000
/// keys show the cap as well as a million would, in a fraction of the test's time; how long a check
/// takes is the benchmarks' business, not a test's.
@Suite(Fixtures.enabled) struct HugeEntitlementsTests {
    @Test func manyUngrantedEntitlementsAreCountedNotListed() throws {
        let item = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        var entitlements = try #require(try item.signature.entitlements?.entitlements().dictionaryValue)
        for index in 0..<100_000 { entitlements.append("com.example.key\(index)", .bool(true)) }
        let blob = try EntitlementsBlob.xml(.dictionary(entitlements)).bytes()
        #expect(blob.count > 2_000_000)
        let signature = try item.signature.replacing(SignatureSlot.entitlements, with: blob)
            .replacing(SignatureSlot.derEntitlements, with: nil)
        let report = item.evaluate(signature: signature)
        #expect(report.problems.isEmpty, "\(report.problems.prefix(3))")
        let ungranted = report.installProblems.filter { $0.kind == .entitlementsNotGranted }
        #expect(ungranted.count == 11, "\(ungranted.count) lines")
        #expect(ungranted.last?.message == "and 99990 more entitlements the profile does not grant", "\(ungranted.suffix(2))")
        #expect(report.installProblems.count < 20)
    }
}
