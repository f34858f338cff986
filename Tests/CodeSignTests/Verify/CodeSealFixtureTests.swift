import CodeSign
import Foundation
import SystemSupport
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
                // A loose dylib has no bundle id; its identifier is its own (com.apple.dt.runtime.swiftCore).
                if item.kind != .dylib { #expect(item.identifier == item.bundleIdentifier, "\(url.lastPathComponent): \(item.path)") }
                #expect(item.cdhash?.count == 20)
                items += 1
            }
            #expect(report.items.last?.path.hasPrefix("Payload/") == true)
        }
        #expect(items == 19)
    }

    /// Issue 30: every real build verifies as codesign would judge it, slice by slice, and the only
    /// install problems are what time did to it (its profile and certificate have expired since).
    @Test func everyFixtureIpaHasAValidSealAndOnlyExpiryStopsItsInstall() throws {
        var expired = 0
        for url in Fixtures.files(in: "ipa") where url.pathExtension == "ipa" {
            let report = try CodeSignatureVerifier().verify(path: url.path).report
            #expect(report.isValid, "\(url.lastPathComponent): \(report.problems.map(\.description))")
            for problem in report.installProblems {
                let isExpiry =
                    problem.message.hasPrefix("embedded.mobileprovision expired on ")
                    || (problem.message.hasPrefix("signer certificate \"") && problem.message.contains("\" expired on "))
                #expect(isExpiry, "\(url.lastPathComponent): \(problem)")
                if isExpiry { expired += 1 }
            }
            // At its signing time nothing stops it: judged a day after the app's own signature was made.
            let at = try #require(report.items.last.flatMap { _ in try Self.signingTime(of: url.path) })
            let then = try CodeSignatureVerifier(now: at.addingTimeInterval(3600)).verify(path: url.path).report
            #expect(then.installProblems.isEmpty, "\(url.lastPathComponent): \(then.installProblems.map(\.description))")
        }
        #expect(expired > 0)
    }

    /// The signing time of the app's own signature (its last code item's first slice).
    static func signingTime(of ipa: String) throws -> Date? {
        let checked = Locked<Date?>(nil)
        let verifier = CodeSealVerifier(trustHook: { context in
            if let time = try? CodeSignatureCMS(cms: context.signature.signature?.cms ?? [], content: []).signingTime {
                checked.withLock { $0 = time }
            }
            return SignatureTrustProblems()
        })
        _ = try verifier.verify(path: ipa)
        return checked.value
    }
}
