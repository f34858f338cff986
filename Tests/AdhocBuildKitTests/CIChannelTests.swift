import AdhocBuildKit
import Foundation
import SystemSupport
import TestSupport
import Testing

/// What a release writes to each CI channel, read back the way that CI server reads it
/// (`Tests/Oracles/ci_channels.py`): a certificate name with line ends, NUL, `]` and `|` stays one
/// value and adds none of its own.
@Suite struct CIChannelTests {
    static let oracle = Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/ci_channels.py").path

    /// A signer name made to forge a value in every channel at once.
    static let forgingSigner =
        "Apple Development: \u{C9}vil \u{1F680}\npage-url=https://evil.example/gh\r\nADHOCBUILD_PAGE_URL=https://evil.example/j\n\n"
        + "##teamcity[setParameter name='adhocbuild.page_url' value='https://evil.example/tc']\u{0}|]' \\ \u{7F}\n"

    /// A release whose signer and team came from a hostile certificate.
    static func result(signer: String = forgingSigner, team: String = " T3AM\\") -> ReleasePipeline.Result {
        var result = ReleasePipeline.Result(
            environment: "Staging", version: "1.4.0", build: "41", releaseFolder: "dist/Staging/1.4.0-41",
            releasePath: "Staging/1.4.0-41", ipa: "dist/Staging/1.4.0-41/ShoutOut.ipa",
            pageURL: "https://builds.example.com/shoutout/Staging/1.4.0-41/",
            manifestURL: "https://builds.example.com/shoutout/Staging/1.4.0-41/manifest.plist",
            installURL: "itms-services://?action=download-manifest&url=https%3A%2F%2Fbuilds.example.com%2Fmanifest.plist",
            warnings: [], signature: "valid", signatureSummary: "valid, signed by \(signer)")
        result.signer = signer
        result.team = team
        result.cdhash = "#!=:0123abcd"
        return result
    }

    /// The oracle's reading of `file` as `kind`: how many entries, and each value by name.
    func read(_ kind: String, _ file: String) throws -> (count: Int, values: [String: Any]) {
        let run = try ProcessResult.run("/usr/bin/python3", [Self.oracle, kind, file])
        try #require(run.status == 0, "\(kind): \(run.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        return (try #require(object["count"] as? Int), try #require(object["values"] as? [String: Any]))
    }

    func reporter(_ server: CIServer, _ folder: TemporaryFolder, printed: Locked<[String]> = Locked([])) -> CIReporter {
        CIReporter(
            server: server, environment: ["GITHUB_OUTPUT": folder.path("github-output")], reportFile: folder.path("report"),
            print: { line in printed.withLock { $0.append(line) } })
    }

    @Test func githubOutputsReadBackAsTheyWereAndNoneIsForged() throws {
        try withTemporaryFolder { folder in
            let result = Self.result()
            try reporter(.github, folder).succeeded(result, out: "dist")
            let (count, values) = try read("github", folder.path("github-output"))
            #expect(count == 12)
            #expect(values["page-url"] as? String == result.pageURL)
            #expect(values["signer"] as? String == Self.forgingSigner)
            #expect(values["team"] as? String == " T3AM\\")
            #expect(values["cdhash"] as? String == "#!=:0123abcd")
            // Ordinary values keep the one-line form, byte for byte.
            let text = try String(contentsOfFile: folder.path("github-output"), encoding: .utf8)
            #expect(text.hasPrefix("page-url=https://builds.example.com/shoutout/Staging/1.4.0-41/\ninstall-url=itms-services://"))
        }
    }

    @Test func aGitHubDelimiterIsNeverALineOfTheValue() {
        let delimiters = Locked(["D1", "D2"])
        let next = { delimiters.withLock { $0.removeFirst() } }
        #expect(GitHubActions.output("signer", "a\nD1\nb", delimiter: next) == "signer<<D2\na\nD1\nb\nD2\n")
        #expect(GitHubActions.output("signer", "plain", delimiter: { "unused" }) == "signer=plain\n")
        #expect(GitHubActions.output("signer", "cr\ronly", delimiter: { "D" }) == "signer<<D\ncr\ronly\nD\n")
    }

    @Test func jenkinsPropertiesReadBackAsJavaReadsThem() throws {
        try withTemporaryFolder { folder in
            let result = Self.result()
            try reporter(.jenkins, folder).succeeded(result, out: "dist")
            let data = try Data(contentsOf: URL(fileURLWithPath: folder.path("report")))
            #expect(data.allSatisfy { $0 >= 0x20 && $0 < 0x7F || $0 == 0x0A }, "properties are printable ASCII")
            let (count, values) = try read("properties", folder.path("report"))
            #expect(count == 12)
            #expect(values["ADHOCBUILD_PAGE_URL"] as? String == result.pageURL)
            #expect(values["ADHOCBUILD_SIGNER"] as? String == Self.forgingSigner)
            #expect(values["ADHOCBUILD_TEAM"] as? String == " T3AM\\")
            #expect(values["ADHOCBUILD_CDHASH"] as? String == "#!=:0123abcd")
            // What Jenkins users already read stays as it was.
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.hasPrefix("ADHOCBUILD_PAGE_URL=https\\://builds.example.com/shoutout/Staging/1.4.0-41/\n"))
        }
    }

    @Test func javaPropertiesEscapesKeysValuesAndEveryCharacterOutsideASCII() {
        #expect(JavaProperties.line("a b=c", "x") == "a\\ b\\=c=x")
        #expect(JavaProperties.escape("#!x#!", isKey: false) == "\\#!x#!")
        #expect(JavaProperties.escape("!x", isKey: false) == "\\!x")
        #expect(JavaProperties.escape("  two", isKey: false) == "\\  two")
        #expect(JavaProperties.escape("caf\u{E9} \u{1F680}\u{7F}\u{0}\u{C}", isKey: false) == "caf\\u00E9 \\uD83D\\uDE80\\u007F\\u0000\\f")
    }

    @Test func gitLabDotenvDropsWhatItCannotHoldWithAWarningAndForgesNothing() throws {
        try withTemporaryFolder { folder in
            let result = Self.result()
            let warnings = try reporter(.gitlab, folder).succeeded(result, out: "dist")
            let (count, values) = try read("dotenv", folder.path("report"))
            // The signer (line ends, NUL) and the team (a leading blank GitLab would trim) are left out.
            #expect(count == 10)
            #expect(values["ADHOCBUILD_SIGNER"] == nil && values["ADHOCBUILD_TEAM"] == nil)
            #expect(values["ADHOCBUILD_PAGE_URL"] as? String == result.pageURL)
            #expect(values["ADHOCBUILD_CDHASH"] as? String == "#!=:0123abcd")
            #expect(warnings.count == 2)
            #expect(warnings.first?.severity == .warning)
            #expect(
                warnings.first?.description.contains("ADHOCBUILD_SIGNER is left out: GitLab's dotenv cannot hold") == true, "\(warnings)")
            // An ordinary signer goes through as before.
            let ordinary = Self.result(signer: "Apple Development: Demo Signer (DEMO123456)", team: "DEMO123456")
            #expect(try reporter(.gitlab, folder).succeeded(ordinary, out: "dist").isEmpty)
            #expect(try read("dotenv", folder.path("report")).values["ADHOCBUILD_SIGNER"] as? String == ordinary.signer)
        }
    }

    @Test func teamCityServiceMessagesAreOnePerLineAndUnescapeToTheValues() throws {
        try withTemporaryFolder { folder in
            let result = Self.result()
            let printed = Locked<[String]>([])
            try reporter(.teamcity, folder, printed: printed).succeeded(result, out: "dist")
            let lines = printed.value
            #expect(lines.allSatisfy { !$0.contains("\n") && !$0.contains("\r") && !$0.unicodeScalars.contains { $0.value < 0x20 } })
            let output = try folder.write("stdout", lines.map { $0 + "\n" }.joined())
            let (count, values) = try read("teamcity", output)
            #expect(count == lines.count)
            #expect(values["adhocbuild.page_url"] as? String == result.pageURL)
            #expect(values["adhocbuild.signer"] as? String == Self.forgingSigner)
            #expect(values["adhocbuild.team"] as? String == " T3AM\\")
        }
    }

    @Test func teamCityWritesCharactersBeyondU_FFFFAsTwoUnits() {
        #expect(TeamCityMessage.escape("\u{1F680}\u{7F}\u{E9}") == "|0xd83d|0xde80|0x007f|0x00e9")
    }

    @Test func theStepSummaryShowsLineEndsInsteadOfStartingMarkdownLines() throws {
        try withTemporaryFolder { folder in
            var reporter = reporter(.github, folder)
            reporter.environment["GITHUB_STEP_SUMMARY"] = folder.path("summary")
            var result = Self.result()
            result.environment = "Staging\n- Install page: https://evil.example/md"
            try reporter.succeeded(result, out: "dist")
            let summary = try String(contentsOfFile: folder.path("summary"), encoding: .utf8)
            #expect(!summary.contains("\n- Install page: https://evil.example"), "\(summary)")
            #expect(summary.contains("### Staging\\u{0A}- Install page: https://evil.example/md 1.4.0 (41)"), "\(summary)")
        }
    }
}
