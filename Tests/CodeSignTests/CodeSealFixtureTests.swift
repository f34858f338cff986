import CodeSign
import Foundation
import TestSupport
import Testing

/// Every fixture ipa's seal holds: every code page, special slot and sealed file of every code item.
@Suite(Fixtures.enabled) struct CodeSealFixtureTests {
    @Test func everyFixtureIpaVerifiesWithNoSealProblems() throws {
        var items = 0
        for url in Fixtures.files(in: "ipa") where url.pathExtension == "ipa" {
            let report = try CodeSealVerifier().verify(path: url.path)
            #expect(report.problems.map(\.description) == [], "\(url.lastPathComponent)")
            for item in report.items {
                #expect(item.status == .signed, "\(url.lastPathComponent): \(item.path)")
                #expect(item.identifier == item.bundleIdentifier, "\(url.lastPathComponent): \(item.path)")
                #expect(item.cdhash?.count == 20)
                items += 1
            }
            #expect(report.items.last?.path.hasPrefix("Payload/") == true)
        }
        #expect(items == 7)
    }
}
