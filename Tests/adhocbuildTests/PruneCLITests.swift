import Foundation
import TestSupport
import Testing

/// `adhocbuild prune` as a CI step runs it (issue 34): it lists, removes only with `--yes`, never
/// `latest`'s release, and rewrites the index.
@Suite struct PruneCLITests {
    /// A DIST of hand-written releases with fixed dates: Staging 1.4.0-38 to -41 (latest → -39, an
    /// older one) and QA 1.4.0-40.
    static func makeDist(_ folder: TemporaryFolder) throws -> String {
        let releases = [
            ("Staging", "1.4.0-38", "2025-09-01T10:00:00Z"), ("Staging", "1.4.0-39", "2025-10-01T10:00:00Z"),
            ("Staging", "1.4.0-40", "2025-11-01T10:00:00Z"), ("Staging", "1.4.0-41", "2025-12-01T10:00:00Z"),
            ("QA", "1.4.0-40", "2025-10-15T08:30:00+02:00")
        ]
        for (environment, name, date) in releases {
            let build = name.split(separator: "-")[1]
            let json = #"{"environment": "\#(environment)", "version": "1.4.0", "build": "\#(build)", "date": "\#(date)"}"#
            try folder.create("dist/\(environment)/\(name)/build.json", Data(json.utf8))
            try folder.create("dist/\(environment)/\(name)/App.ipa", Data(repeating: 1, count: 1000))
        }
        #expect(symlink("1.4.0-39", folder.path("dist/Staging/latest")) == 0)
        #expect(symlink("1.4.0-40", folder.path("dist/QA/latest")) == 0)
        let index = try AdhocBuildBinary.run(["index", folder.path("dist"), "--title", "ShoutOut"])
        #expect(index.status == 0, "\(index.stderrText)")
        return folder.path("dist")
    }

    @Test func withoutYesItListsWhatItWouldRemoveAndRemovesNothing() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder)
            let before = folder.listing()
            let result = try AdhocBuildBinary.run(["prune", dist, "--keep", "1"])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(
                result.stdoutText == """
                    would remove Staging/1.4.0-40 (published 2025-11-01 10:00 UTC)
                    would remove Staging/1.4.0-38 (published 2025-09-01 10:00 UTC)
                    2 of 5 releases would be removed; run again with --yes to remove them

                    """)
            #expect(result.stderrText.isEmpty)
            #expect(folder.listing() == before)
            let json = try AdhocBuildBinary.run(["prune", dist, "--keep", "1", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
            #expect(object["removed"] as? Bool == false)
            let remove = try #require(object["remove"] as? [[String: Any]])
            #expect(remove.compactMap { $0["folder"] as? String } == ["Staging/1.4.0-40", "Staging/1.4.0-38"])
            #expect(remove.first?["date"] as? String == "2025-11-01T10:00:00Z")
            #expect((object["keep"] as? [Any])?.count == 3)
            #expect(folder.listing() == before)
        }
    }

    /// `--yes` removes exactly the plan, keeps `latest`'s older release, rewrites the index (keeping
    /// its title) and leaves nothing hidden behind.
    @Test func withYesItRemovesExactlyThePlanAndRewritesTheIndex() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder)
            let before = folder.listing()
            let result = try AdhocBuildBinary.run(["prune", dist, "--keep", "1", "--older-than", "30d", "--env", "Staging", "--yes"])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(
                result.stdoutText == """
                    removed Staging/1.4.0-40 (published 2025-11-01 10:00 UTC)
                    removed Staging/1.4.0-38 (published 2025-09-01 10:00 UTC)
                    \(dist)/index.html: 3 releases

                    """)
            let gone = ["dist/Staging/1.4.0-40", "dist/Staging/1.4.0-38"]
            let expected = before.keys.filter { key in !gone.contains { key.hasPrefix($0) } }
            #expect(Set(folder.listing().keys) == Set(expected))
            let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
            #expect(index.contains("<title>ShoutOut</title>"))
            #expect(index.contains("Staging/1.4.0-41/") && index.contains("Staging/1.4.0-39/") && index.contains("QA/1.4.0-40/"))
            #expect(!index.contains("Staging/1.4.0-40/") && !index.contains("Staging/1.4.0-38/"))
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/latest/build.json")))
            let again = try AdhocBuildBinary.run(["prune", dist, "--keep", "1", "--yes"])
            #expect(again.stdoutText == "nothing to remove: 3 releases kept\n", "\(again.stderrText)")
        }
    }

    /// A DIST that `page` wrote: three releases of the same minute, ordered by their numbers.
    @Test(Fixtures.enabled) func itPrunesReleasesThatPageWrote() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let ipa = Fixtures.url("ipa", "app_info_ipad_appstore-cgbi-icons.ipa").path
            for build in 1...3 {
                let page = try AdhocBuildBinary.run([
                    "page", ipa, "--base-url", "https://builds.example.com/ipad/1.0-\(build)/", "-o",
                    folder.path("dist/Staging/1.0-\(build)"),
                    "--environment", "Staging", "--allow-expired"
                ])
                #expect(page.status == 0, "\(page.stderrText)")
            }
            let dist = folder.path("dist")
            let result = try AdhocBuildBinary.run(["prune", dist, "--keep", "2", "--yes"])
            #expect(result.status == 0, "\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n")
            #expect(lines.count == 2 && lines[0].hasPrefix("removed Staging/1.0-1 (published 20"), "\(result.stdoutText)")
            #expect(lines.last == "\(dist)/index.html: 2 releases")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("dist/Staging")).sorted() == ["1.0-2", "1.0-3"])
        }
    }

    /// A `latest` left pointing at a release deleted by hand is pointed at the newest one left; a date
    /// that does not read is removed by `--keep` but kept, with a warning, by `--older-than`.
    @Test func aDanglingLatestIsRepointedAndAnUnreadableDateIsKeptByAge() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder)
            try folder.create("dist/Staging/1.4.0-37/build.json", Data(#"{"environment": "Staging", "date": "yesterday"}"#.utf8))
            try FileManager.default.removeItem(atPath: folder.path("dist/Staging/latest"))
            #expect(symlink("1.4.0-99", folder.path("dist/Staging/latest")) == 0)
            let byCount = try AdhocBuildBinary.run(["prune", dist, "--keep", "4"])
            #expect(byCount.stdoutText.hasPrefix("would remove Staging/1.4.0-37 (published 'yesterday', a date that does not read)\n"))
            let dryRun = try AdhocBuildBinary.run(["prune", dist, "--older-than", "30d"])
            #expect(
                dryRun.stdoutText == """
                    would remove Staging/1.4.0-40 (published 2025-11-01 10:00 UTC)
                    would remove Staging/1.4.0-39 (published 2025-10-01 10:00 UTC)
                    would remove Staging/1.4.0-38 (published 2025-09-01 10:00 UTC)
                    would point Staging/latest at 1.4.0-41 (it points at 1.4.0-99, which is not there)
                    3 of 6 releases would be removed; run again with --yes to remove them

                    """)
            let warning =
                "warning: \(dist)/Staging/1.4.0-37: kept: its date 'yesterday' does not read, so --older-than cannot tell its age\n"
            #expect(dryRun.stderrText == warning)
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist/Staging/latest"))) == "1.4.0-99")
            let applied = try AdhocBuildBinary.run(["prune", dist, "--older-than", "30d", "--yes"])
            #expect(applied.stdoutText.contains("Staging/latest now points at 1.4.0-41 (it pointed at 1.4.0-99, which is not there)\n"))
            #expect(applied.stderrText == warning)
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist/Staging/latest"))) == "1.4.0-41")
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-37/build.json")))
        }
    }

    /// The hidden names a prune left in `folder` (renamed releases not yet deleted).
    static func hidden(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".adhocbuild-tmp-") }
    }

    /// Killed once the index is written without the releases that go: they are still whole on disk,
    /// unlisted, and the next run removes them.
    @Test func killedAfterWritingTheIndexEveryReleaseIsWholeAndTheNextRunFinishes() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder)
            let before = folder.listing()
            let killed = try InterruptedRun.run(["prune", dist, "--keep", "1", "--yes"], pauseAt: "prune:indexed", signal: SIGKILL)
            #expect(killed.paused && killed.killedBySignal, "\(killed.stderr)")
            let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
            #expect(!index.contains("Staging/1.4.0-40/") && index.contains("Staging/1.4.0-41/"))
            #expect(folder.listing().filter { $0.key.hasPrefix("dist/Staging/") } == before.filter { $0.key.hasPrefix("dist/Staging/") })
            let again = try AdhocBuildBinary.run(["prune", dist, "--keep", "1", "--yes"])
            #expect(again.stdoutText.hasSuffix("\(dist)/index.html: 3 releases\n"), "\(again.stdoutText)\(again.stderrText)")
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-39/build.json")))
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-40")))
        }
    }

    /// Killed after renaming the releases that go: nothing listed is missing, and the hidden folders
    /// go with the next run (here one with nothing to remove).
    @Test func killedAfterHidingTheReleasesTheNextRunDeletesThem() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder)
            let killed = try InterruptedRun.run(["prune", dist, "--keep", "1", "--yes"], pauseAt: "prune:hidden", signal: SIGKILL)
            #expect(killed.paused && killed.killedBySignal, "\(killed.stderr)")
            #expect(try Self.hidden(folder.path("dist/Staging")).count == 2)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path("dist/Staging")).filter { !$0.hasPrefix(".") }.sorted() == [
                    "1.4.0-39", "1.4.0-41", "latest"
                ])
            let again = try AdhocBuildBinary.run(["prune", dist, "--keep", "1", "--yes"])
            #expect(again.stdoutText == "nothing to remove: 3 releases kept\n", "\(again.stderrText)")
            #expect(try Self.hidden(folder.path("dist/Staging")) == [])
        }
    }

    @Test func badValuesGiveOneClearError() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder)
            let before = folder.listing()
            let cases: [([String], Int32, String)] = [
                (["--keep", "-1"], 2, "error: --keep takes a whole number of 1 or more, not '-1'"),
                (["--keep", "0"], 2, "error: --keep takes a whole number of 1 or more, not '0'"),
                (["--older-than", "3x"], 2, "error: --older-than takes a length of time like 30d, 12h, 90m or 1d12h, not '3x'"),
                ([], 2, "error: give --keep N, --older-than AGE or both: without a rule prune removes nothing"),
                (
                    ["--keep", "1", "--env", "Prod"], 1,
                    "error: \(dist): has no release of environment 'Prod'; its environments are QA, Staging"
                )
            ]
            for (arguments, status, error) in cases {
                let result = try AdhocBuildBinary.run(["prune", dist] + arguments + ["--yes"])
                #expect(result.status == status, "\(arguments)")
                #expect(result.stderrText.components(separatedBy: "\n").first == error, "\(arguments): \(result.stderrText)")
                #expect(result.stdoutText.isEmpty)
            }
            #expect(folder.listing() == before)
            let missing = try AdhocBuildBinary.run(["prune", folder.path("none"), "--keep", "1"])
            #expect(missing.status == 1)
            #expect(missing.stderrText == "error: \(folder.path("none")): no such folder\n")
            let file = try AdhocBuildBinary.run(["prune", folder.path("dist/Staging/1.4.0-38/App.ipa"), "--keep", "1"])
            #expect(file.status == 1)
            #expect(file.stderrText == "error: \(folder.path("dist/Staging/1.4.0-38/App.ipa")): is a file, not a folder\n")
        }
    }
}
