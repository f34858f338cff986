import Foundation
import Manifest
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 34, retention in a local DIST: `prune` removes what its plan names, whole, under DIST's
/// lock, never `latest`'s release, and rewrites the index; without `--yes` it changes nothing.
@Suite struct LocalPruneTests {
    /// Writes `DIST/<env>/<name>/` with a build.json published `daysAgo` days before
    /// ``RetentionPlanTests/now``, a page and an ipa, and points `<env>/latest` where `latest` says.
    static func makeDist(
        _ folder: TemporaryFolder, _ releases: [(environment: String, name: String, daysAgo: Double)],
        latest: [String: String] = [:], title: String = "Builds"
    ) throws -> String {
        for release in releases {
            var info = BuildInfo()
            info.environment = release.environment
            let parts = release.name.split(separator: "-")
            (info.version, info.build) = (String(parts[0]), String(parts[1]))
            info.date = RetentionPlanTests.iso(RetentionPlanTests.now.addingTimeInterval(-release.daysAgo * 86_400))
            let base = "dist/\(release.environment)/\(release.name)/"
            try folder.create(base + "build.json", try info.jsonData())
            try folder.create(base + "index.html", Data("<p>page</p>".utf8))
            try folder.create(base + "App.ipa", Data(repeating: 7, count: 4096))
        }
        for (environment, name) in latest {
            #expect(symlink(name, folder.path("dist/\(environment)/latest")) == 0)
        }
        _ = try BuildIndex.write(in: folder.path("dist"), title: title)
        return folder.path("dist")
    }

    static func prune(_ dist: String, keep: Int? = nil, olderThan: String? = nil, environment: String? = nil) throws -> LocalPrune {
        let rules = try RetentionPlan.Rules(keep: keep, olderThan: olderThan.flatMap(TimeSpan.init), environment: environment)
        var prune = LocalPrune(dist: dist, rules: rules)
        prune.now = RetentionPlanTests.now
        return prune
    }

    static let fourStaging: [(environment: String, name: String, daysAgo: Double)] = [
        ("Staging", "1.0-1", 40), ("Staging", "1.0-2", 30), ("Staging", "1.0-3", 20), ("Staging", "1.0-4", 10), ("QA", "2.0-1", 50)
    ]

    @Test func aSurveyChangesNothing() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder, Self.fourStaging, latest: ["Staging": "1.0-4", "QA": "2.0-1"])
            let before = folder.listing()
            let outcome = try Self.prune(dist, keep: 1).survey()
            #expect(outcome.plan.removals.map(\.folder) == ["Staging/1.0-3", "Staging/1.0-2", "Staging/1.0-1"])
            #expect(outcome.indexed == nil)
            #expect(folder.listing() == before)
        }
    }

    @Test func applyingRemovesExactlyThePlanAndRewritesTheIndex() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder, Self.fourStaging, latest: ["Staging": "1.0-4", "QA": "2.0-1"], title: "Shout & <Out>")
            let before = folder.listing()
            let outcome = try Self.prune(dist, keep: 2).apply()
            #expect(outcome.plan.removals.map(\.folder) == ["Staging/1.0-2", "Staging/1.0-1"])
            #expect(outcome.indexed == 3)
            let expected = before.filter { !$0.key.hasPrefix("dist/Staging/1.0-1") && !$0.key.hasPrefix("dist/Staging/1.0-2") }
            #expect(Set(folder.listing().keys) == Set(expected.keys), "hidden folders or missing files left")
            let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
            #expect(index.contains("Staging/1.0-4/index.html") && index.contains("Staging/1.0-3/index.html"))
            #expect(!index.contains("Staging/1.0-2/") && !index.contains("Staging/1.0-1/"))
            #expect(index.contains("<title>Shout &amp; &lt;Out&gt;</title>"), "the index keeps its title")
            #expect(FileIO.linkTarget(folder.path("dist/Staging/latest")) == "1.0-4")
        }
    }

    /// `latest` pointing at an older release (a re-published one) keeps it, whatever the rules say.
    @Test func theReleaseLatestPointsToStays() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder, Self.fourStaging, latest: ["Staging": "1.0-2"])
            let outcome = try Self.prune(dist, keep: 1, olderThan: "1d").apply()
            #expect(outcome.plan.removals.map(\.folder) == ["Staging/1.0-3", "Staging/1.0-1"])
            #expect(FileIO.kind(of: folder.path("dist/Staging/1.0-2/build.json")) == .file)
            #expect(FileIO.kind(of: folder.path("dist/Staging/latest/build.json")) == .file)
        }
    }

    /// A `latest` left pointing at a release deleted by hand is pointed at the newest one left.
    @Test func aLatestThatPointsAtNothingIsPointedAtTheNewestReleaseLeft() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder, Self.fourStaging, latest: ["Staging": "1.0-5"])
            let survey = try Self.prune(dist, keep: 2).survey()
            #expect(survey.repairs == [LocalPrune.LatestRepair(link: "Staging/latest", previous: "1.0-5", target: "1.0-4")])
            #expect(FileIO.linkTarget(folder.path("dist/Staging/latest")) == "1.0-5")
            _ = try Self.prune(dist, keep: 2).apply()
            #expect(FileIO.linkTarget(folder.path("dist/Staging/latest")) == "1.0-4")
        }
    }

    @Test func anEnvironmentFilterTouchesOnlyThatEnvironment() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let releases = Self.fourStaging + [("QA", "2.0-2", 45), ("QA", "2.0-3", 5)]
            let dist = try Self.makeDist(folder, releases)
            let outcome = try Self.prune(dist, keep: 1, environment: "QA").apply()
            #expect(outcome.plan.removals.map(\.folder) == ["QA/2.0-2", "QA/2.0-1"])
            #expect((try FileManager.default.contentsOfDirectory(atPath: folder.path("dist/Staging"))).count == 4)
            let unknown = expectDiagnostic(FileProblem.self) { try Self.prune(dist, keep: 1, environment: "Prod").survey() }
            #expect(unknown?.report == "\(dist): has no release of environment 'Prod'; its environments are QA, Staging")
        }
    }

    /// When the index cannot be written, every release folder is put back: DIST is as it was.
    @Test func aFailureToWriteTheIndexPutsEveryReleaseBack() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder, Self.fourStaging, latest: ["Staging": "1.0-4"])
            try FileManager.default.removeItem(atPath: folder.path("dist/index.html"))
            try FileManager.default.createDirectory(atPath: folder.path("dist/index.html"), withIntermediateDirectories: false)
            let before = folder.listing()
            #expect(throws: (any Error).self) { try Self.prune(dist, keep: 1).apply() }
            #expect(folder.listing() == before)
        }
    }

    /// Hidden folders that a killed prune left (renamed, not yet deleted) go with the next run.
    @Test func aHiddenFolderAKilledRunLeftIsRemovedByTheNextRun() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dist = try Self.makeDist(folder, Self.fourStaging)
            // As a process that no longer runs (pid 999999999) would have named it.
            let leftover = "dist/Staging/\(FileIO.temporaryPrefix)1.0-0-999999999.1-abc"
            try folder.create(leftover + "/build.json", Data(#"{"environment": "Staging", "date": "2020-01-01T00:00:00Z"}"#.utf8))
            let index = try BuildIndex.releases(in: dist)
            #expect(index.releases.count == 5, "a hidden folder is not a release")
            _ = try Self.prune(dist, keep: 1).apply()
            #expect(FileIO.kind(of: folder.path(leftover)) == nil)
        }
    }
}
