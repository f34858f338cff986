import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Limits are values passed to each read: reads with different limits may run at once in one
/// process, each held to its own (impossible while the limits were one process-wide setting).
@Suite struct ReaderLimitsTests {
    /// An ipa of four entries whose Info.plist nests arrays six deep, made with Python's zipfile.
    func makeIPA(in folder: TemporaryFolder) throws -> String {
        let path = folder.path("Nested.ipa")
        let python = try #require(ProcessResult.which("python3"))
        let script = """
            import sys, zipfile, plistlib
            info = {'CFBundleIdentifier': 'com.example.nested', 'Deep': [[[[['x']]]]]}
            z = zipfile.ZipFile(sys.argv[1], 'w')
            z.writestr('Payload/', '')
            z.writestr('Payload/Nested.app/', '')
            z.writestr('Payload/Nested.app/Info.plist', plistlib.dumps(info))
            z.writestr('Payload/Nested.app/readme.txt', 'hello')
            z.close()
            """
        let result = try ProcessResult.run(python, ["-c", script, path])
        try #require(result.status == 0, "python: \(result.stderrText)")
        return path
    }

    @Test func differentLimitsUsedAtOnceEachApply() throws {
        try withTemporaryFolder { folder in
            let ipa = try makeIPA(in: folder)
            var fewEntries = ReaderLimits()
            fewEntries.archive.maxEntries = 2
            var shallow = ReaderLimits()
            shallow.plist.maxDepth = 3
            let cases: [(limits: ReaderLimits, outcome: String)] = [(ReaderLimits(), "opened"), (fewEntries, "entries"), (shallow, "depth")]
            let rounds = 60
            let outcomes = (0..<rounds).map { _ in OutcomeSlot() }
            DispatchQueue.concurrentPerform(iterations: rounds) { round in
                let limits = cases[round % cases.count].limits
                do {
                    let package = try AppPackage.open(ipa, limits: limits)
                    outcomes[round].value = package.app.bundleIdentifier == "com.example.nested" ? "opened" : "opened wrongly"
                } catch let error as Diagnostic
                    where error.is(IPAProblem.self) && error.isLimitExceeded && error.message.contains("entries")
                {
                    outcomes[round].value = "entries"
                } catch let error as Diagnostic where error.is(IPAProblem.self) && error.message.contains("deeper than 3") {
                    outcomes[round].value = "depth"
                } catch {
                    outcomes[round].value = "\(error)"
                }
            }
            for round in 0..<rounds {
                #expect(outcomes[round].value == cases[round % cases.count].outcome, "round \(round)")
            }
        }
    }
}

/// One round's outcome, written by the thread that ran it and read after all have finished.
private final class OutcomeSlot: @unchecked Sendable {
    var value = ""
}
