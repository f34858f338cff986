import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 31, half-done states: `release` checks what publishing writes before it changes DIST, and
/// publishes all or nothing, so a release that fails can be retried once the cause is fixed. With
/// `DIST/<env>/latest` a real folder it published the build, failed, left a temporary link and no
/// index, and every retry was refused as already published.
@Suite struct ReleasePublicationTests {
    func options(_ folder: TemporaryFolder) throws -> ReleasePipeline.Options {
        var options = ReleasePipeline.Options(
            environment: "Staging", input: ReleasePipelineTests.exampleApp, baseURL: "https://builds.example.com/",
            out: folder.path("dist"))
        options.environmentsFolder = SampleEnvironments.path
        options.profile = try ReleasePipelineTests.profile(folder)
        options.processEnvironment = [:]
        return options
    }

    /// Runs the release and returns the steps it started and how it failed, if it did.
    func release(_ options: ReleasePipeline.Options) -> (steps: [String], failure: Diagnostic?) {
        let started = Locked<[String]>([])
        var pipeline = ReleasePipeline(options: options)
        pipeline.onStep = { step, finished in if !finished { started.withLock { $0.append(step) } } }
        do {
            _ = try pipeline.run()
            return (started.withLock { $0 }, nil)
        } catch {
            return (started.withLock { $0 }, error as? Diagnostic)
        }
    }

    /// What is in the way (a file made at `blocker`, `cause` then moved away) and the line that says so.
    static let blockers = [
        (
            "dist/Staging/latest/notes.txt", "dist/Staging/latest",
            "is a folder where adhocbuild keeps a link to the newest release; move it away and release again"
        ),
        (
            "dist/Staging/latest", "dist/Staging/latest",
            "is a file where adhocbuild keeps a link to the newest release; move it away and release again"
        ),
        ("dist/Staging", "dist/Staging", "is a file, not a folder"),
        ("dist/index.html/notes.txt", "dist/index.html", "is a folder, not a file")
    ]

    @Test(arguments: blockers) func whatCannotBeWrittenFailsBeforeDISTChangesAndARetrySucceedsOnceItIsMoved(
        blocker: String, cause: String, problem: String
    ) throws {
        try withTemporaryFolder { folder in
            try folder.create(blocker, Data("the user's".utf8))
            let before = folder.listing("dist")
            let options = try options(folder)
            let (steps, failure) = release(options)
            #expect(failure?.subject == "Check \(folder.path("dist"))", "\(String(describing: failure))")
            #expect(failure?.message == folder.path(cause) + ": " + problem)
            #expect(!steps.contains("Copy the build"), "\(steps)")
            #expect(folder.listing("dist") == before)
            // The cause moved away, the same release is published, not refused as published already.
            try FileManager.default.removeItem(atPath: folder.path(cause))
            let retry = release(options)
            #expect(retry.failure == nil, "\(String(describing: retry.failure))")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist/Staging/latest")) == "1.4.0-41")
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/index.html")))
            #expect(Leftover.names(in: folder.path("dist")) == [] && Leftover.names(in: folder.path("dist/Staging")) == [])
        }
    }

    /// A DIST with one release of Staging (1.4.0-40, `latest` pointing at it, an index) and a release
    /// assembled in a temporary folder inside it, ready to publish.
    func dist(_ folder: TemporaryFolder) throws -> (publication: ReleasePublication, staged: String) {
        try folder.create("dist/Staging/1.4.0-40/index.html", Data("forty".utf8))
        try FileManager.default.createSymbolicLink(atPath: folder.path("dist/Staging/latest"), withDestinationPath: "1.4.0-40")
        try folder.create("dist/index.html", Data("the index".utf8))
        let staged = try folder.create("dist/\(try Leftover.live("release"))/release/index.html", Data("new".utf8))
        return (ReleasePublication(out: folder.path("dist"), environment: "Staging"), (staged as NSString).deletingLastPathComponent)
    }

    struct IndexFailure: Error {}

    /// When the last step (the index) fails, the release folder, `latest` and a release it replaced are
    /// put back: DIST is as it was, the assembled release still in its temporary folder.
    @Test(arguments: [("1.4.0-41", false), ("1.4.0-40", true)]) func aPublishThatFailsAtTheIndexPutsEverythingBack(
        name: String, replace: Bool
    ) throws {
        try withTemporaryFolder { folder in
            var (publication, staged) = try dist(folder)
            let before = folder.listing()
            publication.writeIndex = { _, _ in throw IndexFailure() }
            #expect(throws: IndexFailure.self) { try publication.publish(staged, as: name, replace: replace, indexTitle: "Builds") }
            #expect(folder.listing() == before)
            publication.writeIndex = ReleasePublication(out: "", environment: "").writeIndex
            _ = try publication.publish(staged, as: name, replace: replace, indexTitle: "Builds")
            #expect(folder.listing()["dist/Staging/\(name)/index.html"] == .file(Data("new".utf8)))
            #expect(folder.listing()["dist/Staging/latest"] == .link(name))
        }
    }

    /// An environment's first release makes its folder; a failure takes it away again.
    @Test func aFailedFirstReleaseOfAnEnvironmentLeavesNoFolderForIt() throws {
        try withTemporaryFolder { folder in
            var (publication, staged) = try dist(folder)
            publication.environment = "QA"
            publication.writeIndex = { _, _ in throw IndexFailure() }
            let before = folder.listing()
            #expect(throws: IndexFailure.self) { try publication.publish(staged, as: "1.4.0-41", replace: false, indexTitle: "Builds") }
            #expect(folder.listing() == before)
        }
    }

    /// What killed releases left (an assembled release in DIST, a link beside `latest`) is removed by
    /// the next; a running release's is not.
    @Test func theNextReleaseRemovesWhatKilledOnesLeft() throws {
        try withTemporaryFolder { folder in
            try folder.create("dist/\(Leftover.dead("release"))/release/ShoutOut.ipa", Data(count: 1 << 20))
            try folder.create("dist/\(try Leftover.live("release"))/release/ShoutOut.ipa", Data(count: 10))
            try folder.create("dist/Staging/1.4.0-40/index.html", Data())
            try FileManager.default.createSymbolicLink(
                atPath: folder.path("dist/Staging/\(Leftover.dead("latest"))"), withDestinationPath: "1.4.0-40")
            #expect(release(try options(folder)).failure == nil)
            #expect(Leftover.names(in: folder.path("dist")) == [try Leftover.live("release")])
            #expect(Leftover.names(in: folder.path("dist/Staging")) == [])
        }
    }
}
