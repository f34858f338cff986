import Foundation
import Manifest
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Publishing from stateless agents into one store, and pruning it: the index is the store's, whole.
@Suite(SeaweedFS.enabled)
struct StorePublishingTests {
    /// Copies of the test release as `<env>/1.4.0-1` … `<env>/1.4.0-<count>` (published in the same
    /// second, so the index orders them by name: the highest is the newest).
    static func copies(of release: PublishingTestRelease, _ count: Int) throws -> [String] {
        let parent = (release.folder as NSString).deletingLastPathComponent
        return try (1...count).map { number in
            let folder = parent + "/1.4.0-\(number)"
            try FileManager.default.copyItem(atPath: release.folder, toPath: folder)
            return folder
        }
    }

    static func indexLinks(_ store: ReleaseStore) throws -> [String] {
        let html = String(
            decoding: try store.client.getObject(bucket: store.location.bucket, key: store.key("index.html")).data, as: UTF8.self)
        return PublishingTestRelease.links(inPage: html).filter { $0.contains("/index.html?") && $0.contains("/1.4.0-") }
    }

    /// Eight agents, each with its own client and nothing shared but the bucket, publish at once: the
    /// index lists all eight and `latest` holds the newest.
    @Test func eightPublishesAtOnceAllLandInTheIndex() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let folders = try Self.copies(of: release, 8)
            let failures = Locked<[String]>([])
            try Parallel.forEach(8) { index in
                do {
                    _ = try ReleaseUpload(store: try release.store()).publish(folders[index])
                } catch {
                    failures.withLock { $0.append("\(folders[index]): \(error)") }
                }
            }
            #expect(failures.value == [])
            let store = try release.store()
            let links = try Self.indexLinks(store)
            for number in 1...8 {
                #expect(links.contains { $0.contains("/1.4.0-\(number)/index.html?") }, "1.4.0-\(number) is missing from the index")
            }
            let latest = try store.client.getObject(
                bucket: release.bucket, key: store.key("\(PublishingTestRelease.environment)/latest/build.json"))
            #expect(try BuildInfo(json: latest.data).pageURL?.contains("/1.4.0-8/index.html?") == true)
        }
    }

    @Test func pruneOnAStoreRemovesWhatThePlanNamesAndRebuildsTheIndex() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let store = try release.store()
            for copy in try Self.copies(of: release, 4) { _ = try ReleaseUpload(store: store).publish(copy) }
            func keys() throws -> [String] { try store.client.listObjects(bucket: release.bucket, prefix: "builds/").objects.map(\.key) }
            let before = try keys()

            let prune = StorePrune(store: store, rules: try RetentionPlan.Rules(keep: 2, olderThan: nil))
            let survey = try prune.survey()
            #expect(
                survey.plan.removals.map(\.folder).sorted() == ["1.4.0-1", "1.4.0-2"].map { "\(PublishingTestRelease.environment)/\($0)" })
            #expect(try keys() == before, "a survey changed the store")

            let outcome = try prune.apply()
            #expect(outcome.indexed == 2)
            let after = try keys()
            for gone in ["1.4.0-1", "1.4.0-2"] { #expect(!after.contains { $0.contains("/\(gone)/") }, "\(gone) is still there") }
            for kept in ["1.4.0-3", "1.4.0-4"] {
                #expect(after.contains("builds/\(PublishingTestRelease.environment)/\(kept)/Shout.ipa"), "\(kept) was removed")
            }
            let links = try Self.indexLinks(store)
            let listed = Set(links.compactMap { link in (1...4).first { link.contains("/1.4.0-\($0)/") } })
            #expect(listed == [3, 4], "\(links)")
            let latest = try store.client.getObject(
                bucket: release.bucket, key: store.key("\(PublishingTestRelease.environment)/latest/build.json"))
            #expect(try BuildInfo(json: latest.data).pageURL?.contains("/1.4.0-4/") == true)
        }
    }
}
