import Foundation
import Manifest
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 34: the store's index and `latest` are built from the store's state, with links a browser
/// opens with no credentials, against a real SeaweedFS.
@Suite(SeaweedFS.enabled)
struct StoreIndexTests {
    /// Releases in three environments, two made in the same second and one whose date is in another zone.
    static let releases = [
        StoreTestBucket.info("Staging", "1.0", "99", date: "2026-06-01T10:00:00Z"),
        StoreTestBucket.info("Staging", "1.0", "100", date: "2026-06-01T10:00:00Z", icon: "icon-small.png"),
        StoreTestBucket.info("Staging", "1.0", "98", date: "2026-06-01T11:30:00+02:00"),
        StoreTestBucket.info("Production", "2.0", "5", date: "2026-05-20T08:00:00Z", icon: "icon-small.png"),
        StoreTestBucket.info("Beta Testers", "3.0", "1", date: "2026-06-02T08:00:00Z")
    ]

    @Test func theIndexListsTheReleasesGroupedAndOrderedAsALocalIndexDoes() throws {
        let bucket = try StoreTestBucket()
        let base = "https://cdn.example.com/ios/"
        let store = try bucket.store(.publicBase(base))
        for info in Self.releases { try bucket.putRelease(info) }

        let update = try store.updateIndex(title: "ShoutOut builds")
        #expect(update.releaseCount == 5)
        #expect(update.problems.isEmpty)
        #expect(update.url == base + "index.html")
        #expect(update.attempts == 1)
        #expect(update.latest == ["Beta Testers/3.0-1", "Production/2.0-5", "Staging/1.0-100"])

        // The same releases in a DIST: the store's index is the local one with every link under the base.
        let local = try withTemporaryFolder { (folder: TemporaryFolder) throws -> String in
            for info in Self.releases {
                let release = folder.path("\(info.environment!)/\(info.version!)-\(info.build!)")
                try FileManager.default.createDirectory(atPath: release, withIntermediateDirectories: true)
                try info.jsonData().write(to: URL(fileURLWithPath: release + "/build.json"))
            }
            _ = try BuildIndex.write(in: folder.path(""), title: "ShoutOut builds")
            return try String(contentsOfFile: folder.path("index.html"), encoding: .utf8)
        }
        let expected = local.replacingOccurrences(of: "href=\"", with: "href=\"\(base)").replacingOccurrences(
            of: "src=\"", with: "src=\"\(base)")
        #expect(try bucket.text("index.html") == expected)
        #expect(StoreTestBucket.links(in: expected).contains(base + "Beta%20Testers/3.0-1/index.html"))
        #expect(try bucket.text("index.css") == (try TemplateSet().render("index-style", .record([:]))))
    }

    @Test func presignedLinksInTheIndexOpenWithoutCredentialsAndTamperedOnesAreRefused() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store(.presigned(ttl: 600))
        for info in Self.releases.prefix(2) { try bucket.putRelease(info) }
        let update = try store.updateIndex(title: "Builds")

        let index = try StoreTestBucket.fetch(update.url)
        #expect(index.status == "200")
        #expect(index.body == (try bucket.text("index.html")))
        let links = StoreTestBucket.links(in: index.body)
        // The stylesheet, the latest link, and each release's icon (when it has one) and page.
        let expected = [
            "index.css", "Staging/1.0-100/index.html", "Staging/1.0-100/index.html", "Staging/1.0-100/icon-small.png",
            "Staging/1.0-99/index.html"
        ]
        try #require(links.count == expected.count)
        for (link, relative) in zip(links, expected) {
            #expect(link.hasPrefix(bucket.server.endpoint + "/\(bucket.bucket)/builds/ios/\(relative)?"))
            #expect(link.contains("X-Amz-Signature="))
            let fetched = try StoreTestBucket.fetch(link)
            #expect(fetched.status == "200", "\(relative)")
            #expect(fetched.body == (try bucket.text(relative)))
        }
        let tampered = String(links[1].dropLast()) + (links[1].hasSuffix("0") ? "1" : "0")
        #expect(try StoreTestBucket.fetch(tampered).status == "403")
        #expect(try StoreTestBucket.fetch(String(links[1].prefix { $0 != "?" })).status == "403")
    }

    @Test func latestHoldsCopiesOfEachEnvironmentsNewestReleaseNotTheLastPublished() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "9", date: "2026-06-01T10:00:00Z"))
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "10", date: "2026-06-01T11:00:00Z"))
        try bucket.putRelease(StoreTestBucket.info("Production", "1.0", "8", date: "2026-05-01T11:00:00Z"))
        #expect(try store.updateIndex(title: "Builds").latest == ["Production/1.0-8", "Staging/1.0-10"])
        try expectLatest(bucket, "Staging", "Staging/1.0-10")
        try expectLatest(bucket, "Production", "Production/1.0-8")

        // An older build published late: latest stays where it is; the index lists it.
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "7", date: "2026-05-31T10:00:00Z"))
        let late = try store.updateIndex(title: "Builds")
        #expect(late.latest == ["Production/1.0-8", "Staging/1.0-10"])
        #expect(late.releaseCount == 4)
        try expectLatest(bucket, "Staging", "Staging/1.0-10")

        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "11", date: "2026-06-02T10:00:00Z"))
        #expect(try store.updateIndex(title: "Builds").latest == ["Production/1.0-8", "Staging/1.0-11"])
        try expectLatest(bucket, "Staging", "Staging/1.0-11")
    }

    func expectLatest(_ bucket: StoreTestBucket, _ environment: String, _ folder: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        #expect(try bucket.get("\(environment)/latest/build.json") == bucket.get(folder + "/build.json"), sourceLocation: sourceLocation)
        #expect(try bucket.text("\(environment)/latest/index.html") == StoreTestBucket.page(folder), sourceLocation: sourceLocation)
    }

    @Test func unreadableReleasesAreProblemsAndTheIndexIsStillWritten() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "57", date: "2026-06-01T10:00:00Z"))
        try bucket.put("Staging/1.0-58/build.json", Data("not json".utf8))
        // The newest release has lost its page: latest keeps the older page, and says so.
        try bucket.put(
            "Staging/1.0-59/build.json", try StoreTestBucket.info("Staging", "1.0", "59", date: "2026-06-02T10:00:00Z").jsonData())

        let update = try store.updateIndex(title: "Builds")
        #expect(update.releaseCount == 2)
        #expect(update.latest == ["Staging/1.0-59"])
        let name = "s3://\(bucket.bucket)/builds/ios/Staging/"
        try #require(update.problems.count == 2)
        #expect(update.problems[0].hasPrefix(name + "1.0-58/build.json: "))
        #expect(update.problems[1] == name + "1.0-59/index.html: is missing, so Staging/latest/index.html still shows an older release")
        #expect(try bucket.text("index.html").contains("2 builds in 1 environment"))
        #expect(try bucket.get("Staging/latest/build.json") == bucket.get("Staging/1.0-59/build.json"))
    }

    /// `store.updateIndex(title:)` with no pause between attempts, running `first()` in the first
    /// attempt once the store is read and before anything is written, and `later()` in the others.
    func updateIndex(_ store: ReleaseStore, first: () throws -> Void, later: () throws -> Void = {}) throws -> StoreIndexUpdate {
        try store.updateIndex(title: "Builds", attempts: 10, pause: { _ in }, beforeWriting: { try $0 == 1 ? first() : later() })
    }

    @Test func anIndexWrittenByAnotherPublisherMeanwhileIsReadAgain() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "57", date: "2026-06-01T10:00:00Z"))
        let update = try updateIndex(store, first: { try bucket.put("index.html", Data("another publisher's index".utf8)) })
        #expect(update.attempts == 2)
        #expect(try bucket.text("index.html").contains("1 build in 1 environment"))

        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "58", date: "2026-06-02T10:00:00Z"))
        let latest = try updateIndex(store, first: { try bucket.put("Staging/latest/build.json", Data("{}".utf8)) })
        #expect(latest.attempts == 2)
        try expectLatest(bucket, "Staging", "Staging/1.0-58")
    }

    @Test func aPublisherWithAnOlderListingNeitherDropsAReleaseNorMovesLatestBack() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "1", date: "2026-06-01T10:00:00Z"))
        // Between this agent's listing and its writes, another publishes a newer release and updates
        // everything. Its first attempt then writes nothing: latest is still the newer release when
        // the second begins.
        let update = try updateIndex(
            store,
            first: {
                try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "2", date: "2026-06-01T11:00:00Z"))
                #expect(try bucket.store().updateIndex(title: "Builds").latest == ["Staging/1.0-2"])
            },
            later: { try expectLatest(bucket, "Staging", "Staging/1.0-2") })
        #expect(update.attempts == 2)
        #expect(update.latest == ["Staging/1.0-2"])
        try expectLatest(bucket, "Staging", "Staging/1.0-2")
        #expect(try bucket.text("index.html").contains("2 builds in 1 environment"))
    }

    @Test func publishersThatKeepWritingFirstMakeItGiveUpWithOneClearLine() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "1", date: "2026-06-01T10:00:00Z"))
        let pauses = Locked<[Int]>([])
        let failure = expectDiagnostic(ObjectStorageProblem.self) {
            try store.updateIndex(
                title: "Builds", attempts: 3, pause: { attempt in pauses.withLock { $0.append(attempt) } },
                beforeWriting: { attempt in try bucket.put("index.html", Data("index \(attempt)".utf8)) })
        }
        #expect(failure?.code == .storage(.preconditionFailed))
        #expect(
            failure?.report
                == "PUT s3://\(bucket.bucket)/builds/ios/index.html: was changed by other publishers during each of 3 attempts to update it "
                + "(update the index again; it is rebuilt from what the store holds)")
        #expect(pauses.value == [1, 2])
        #expect(try bucket.text("index.html") == "index 3")
    }
}
