import Foundation
import TestSupport
import Testing

/// Issue 31, unbounded reads: an endless input given where a file is expected (`/dev/zero`, `yes |`)
/// ends at its limit with one line naming it and exit 1, never a crash or a Foundation error dump.
@Suite struct UnboundedInputCLITests {
    static func expectOneLine(_ result: ProcessResult, naming name: String) {
        #expect(result.status == 1, "\(result.stderrText)")
        let lines = result.stderrText.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(result.stderrText)")
        #expect(lines.first?.hasPrefix("error: \(name): ") == true, "\(result.stderrText)")
        #expect(!result.stderrText.contains("NSCocoaErrorDomain") && !result.stderrText.contains("Fatal error"))
    }

    @Test func anEndlessStandardInputToPlistPrintEndsAtThePlistLimit() throws {
        let shell = "yes | \"$0\" plist print -"
        var environment = ProcessInfo.processInfo.environment
        environment["ADHOCBUILD_MAX_PLIST_SIZE"] = "1M"
        environment["NO_COLOR"] = "1"
        let result = try ProcessResult.run("/bin/sh", ["-c", shell, AdhocBuildBinary.path], environment: environment)
        Self.expectOneLine(result, naming: "standard input")
        #expect(result.stderrText.contains("goes on past 1048576 bytes"))
    }

    @Test func devZeroAsAPlistEndsAtThePlistLimit() throws {
        for arguments in [["plist", "print", "/dev/zero"], ["plist", "convert", "/dev/zero", "--to", "xml", "-o", "/dev/null"]] {
            let result = try AdhocBuildBinary.run(arguments, extraEnvironment: ["ADHOCBUILD_MAX_PLIST_SIZE": "1M"])
            Self.expectOneLine(result, naming: "/dev/zero")
        }
    }

    @Test(Fixtures.enabled) func devZeroAsNotesOrIconOfAPageEndsAtItsLimit() throws {
        let ipa = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
        try withTemporaryFolder { folder in
            for option in ["--notes", "--icon"] {
                let result = try AdhocBuildBinary.run(
                    ["page", ipa, "--base-url", "https://example.com/a/", option, "/dev/zero", "-o", folder.path("out")])
                Self.expectOneLine(result, naming: "/dev/zero")
                #expect(!FileManager.default.fileExists(atPath: folder.path("out")))
            }
        }
    }
}
