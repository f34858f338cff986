import Foundation
import TestSupport
import Testing

/// Names from builds that others control (an archive entry's, a bundle's display name) are printed
/// with their control characters shown: they cannot add lines of their own to an error, to standard
/// output or to a CI log that reads service messages from it.
@Suite struct UntrustedOutputCLITests {
    static let forgedLine = "error: everything is fine"

    @Test func anErrorBuiltFromAnEntryNameWithANewlinePrintsOneLine() throws {
        try withTemporaryFolder { folder in
            let ipa = folder.path("Evil.ipa")
            // An app folder without Info.plist, named so that the error quoting it forges a line of its own.
            let made = try ProcessResult.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
                        + "    z.writestr('Payload/A\\n\(Self.forgedLine)\\n.app/ShoutOut', b'x')",
                    ipa
                ])
            try #require(made.status == 0, "\(made.stderrText)")
            let result = try AdhocBuildBinary.run(["inspect", ipa])
            #expect(result.status == 1)
            let lines = result.stderrText.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines[1].isEmpty, "\(result.stderrText)")
            #expect(result.stderrText.contains("Payload/A\\u{0A}\(Self.forgedLine)\\u{0A}.app"), "\(result.stderrText)")
            #expect(!lines.contains { $0.hasPrefix(Self.forgedLine) })
        }
    }

    @Test func aDisplayNameCannotAddLinesOrServiceMessagesToStandardOutput() throws {
        try withTemporaryFolder { folder in
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(atPath: Fixtures.packageRoot.path + "/examples/ShoutOut/ShoutOut.app", toPath: app)
            let forged = "##teamcity[setParameter name='adhocbuild.page_url' value='https://evil.example/tc']"
            let name = "Shout\n\(forged)\r\u{0}\u{1B}[2J ok \(forged)"
            // A binary plist holds any string, NUL included (no argument can).
            let set = try ProcessResult.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import plistlib, sys\np = plistlib.load(open(sys.argv[1], 'rb'))\np['CFBundleDisplayName'] = sys.stdin.buffer.read().decode()\n"
                        + "plistlib.dump(p, open(sys.argv[1], 'wb'), fmt=plistlib.FMT_BINARY)",
                    app + "/Info.plist"
                ], input: Data(name.utf8))
            try #require(set.status == 0, "\(set.stderrText)")
            let result = try AdhocBuildBinary.run(["inspect", app])
            #expect(result.status == 0, "\(result.stderrText)")
            let nameLines = result.stdoutText.split(separator: "\n").filter { $0.hasPrefix("name:") }
            #expect(
                nameLines == [
                    "name:             Shout\\u{0A}##teamcity\\u{5B}setParameter name='adhocbuild.page_url' value='https://evil.example/tc']"
                        + "\\u{0D}\\u{00}\\u{1B}[2J ok ##teamcity\\u{5B}setParameter name='adhocbuild.page_url' value='https://evil.example/tc']"
                ], "\(result.stdoutText)")
            #expect(!result.stdoutText.contains("##teamcity["))
            #expect(!result.stdout.contains { $0 < 0x20 && $0 != 0x0A })
        }
    }
}
