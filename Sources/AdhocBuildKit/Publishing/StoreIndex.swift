import Foundation
import Manifest
import ObjectStorage
import SystemSupport

/// What ``ReleaseStore/updateIndex(title:)`` wrote.
public struct StoreIndexUpdate: Sendable, Equatable {
    /// How many releases the index lists.
    public var releaseCount: Int
    /// The `build.json` files that could not be read, and newest releases whose page could not be
    /// copied to `latest`, each naming its `s3://bucket/key`.
    public var problems: [String]
    /// The index's link, as ``ReleaseStore/url(_:)`` writes it.
    public var url: String
    /// The releases (`<env>/<name>`) that `<env>/latest/` now holds copies of, one per environment.
    public var latest: [String]
    /// How many times the store was read and the index written (more than 1 when other publishers
    /// wrote it at the same moment).
    public var attempts: Int
}

extension ReleaseStore {
    /// How many times ``updateIndex(title:)`` reads the store again after another publisher wrote first.
    public static let indexAttempts = 10

    /// Rebuilds the index of every release from the store's state, not from any local DIST:
    /// `index.html` and `index.css` at the prefix, and for each environment `<env>/latest/index.html`
    /// and `<env>/latest/build.json`, copies of its newest release's page and `build.json` (newest
    /// as the index orders them). Every link in the index is a ``url(_:)``: presigned (the index
    /// works as long as its links do) or under the public base.
    ///
    /// Safe when agents on machines that share nothing publish at the same moment. Each attempt
    /// 1. lists the prefix once to read the entity tags of the index and of every `latest` copy,
    /// 2. lists it again and reads every release's `build.json` ("the releases"),
    /// 3. writes each `latest` copy that differs from its newest release, then the index, every write
    ///    conditional on the entity tag read in step 1 (`If-Match`; `If-None-Match: *` when absent).
    ///
    /// Why nothing is lost: a conditional write succeeds only if nobody wrote the object after step 1
    /// read its tag. Whoever wrote what is there listed the releases before writing it, so before
    /// this attempt's step 2, and a release's `build.json` is in the store before its publisher
    /// updates the index: this attempt's listing holds every release theirs held. So the index never
    /// drops a release an earlier index listed, and a `latest` copy never moves back to an older
    /// release (the newest of more releases is at least as new), even for an agent that read the
    /// store long before another wrote. When a write finds its object changed (412), the attempt
    /// starts again after a short random pause, up to ``indexAttempts`` times. The tags are read
    /// with a listing, not HEADs, because the environments are only known from one and the tags
    /// must be read before the releases. `latest` is written before the index, so an index that
    /// lists a release comes with a `latest` at least as new. Anything else that writes the index
    /// or `latest` (prune) must write them the same way, or this no longer holds.
    ///
    /// What is compared is the entity tag: a copy whose tag equals its newest release's file is not
    /// written again (stores whose tags are not MD5s, such as AWS with KMS keys, rewrite it each
    /// time, which is as safe). A release removed between the listings is left out; a store that
    /// cannot be read throws, rather than writing an index of part of it.
    public func updateIndex(title: String) throws -> StoreIndexUpdate {
        try updateIndex(title: title, attempts: Self.indexAttempts)
    }

    /// ``updateIndex(title:)`` with `beforeWriting(attempt)` called once the store is read and before
    /// anything is written (tests write there, as another publisher would), and `pause(attempt)`
    /// between attempts.
    func updateIndex(
        title: String, attempts limit: Int, pause: (_ attempt: Int) -> Void = ReleaseStore.pause,
        beforeWriting: (_ attempt: Int) throws -> Void = { _ in }
    ) throws -> StoreIndexUpdate {
        let templates = try TemplateSet()
        let style = try templates.render("index-style", .record([:]))
        try client.putObject(
            bucket: location.bucket, key: key(BuildIndex.stylesheetName), body: .data(Data(style.utf8)), contentType: "text/css",
            cacheControl: Self.revalidate)
        let reads = BuildInfoReads([:])
        var attempt = 1
        while true {
            do {
                var update = try writeIndex(title: title, templates: templates, reads: reads) { try beforeWriting(attempt) }
                update.attempts = attempt
                return update
            } catch let failure as Diagnostic where failure.code == .storage(.preconditionFailed) {
                guard attempt < limit else {
                    throw Diagnostic.storage(
                        .preconditionFailed, "was changed by other publishers during each of \(limit) attempts to update it",
                        subject: failure.file, hint: "update the index again; it is rebuilt from what the store holds")
                }
                pause(attempt)
                attempt += 1
            }
        }
    }

    /// One attempt of ``updateIndex(title:)``; throws a 412 diagnostic when another publisher wrote first.
    private func writeIndex(
        title: String, templates: TemplateSet, reads: BuildInfoReads, beforeWriting: () throws -> Void
    ) throws -> StoreIndexUpdate {
        let tags = try entityTags()
        let listing = try client.listObjects(bucket: location.bucket, prefix: location.prefix)
        let sourceTags = Dictionary(listing.objects.map { ($0.key, $0.etag) }, uniquingKeysWith: { first, _ in first })
        var (stored, problems) = try storedReleases(in: listing, reads: reads)
        let html = try BuildIndex.html(
            stored.map(\.release), title: title, templates: templates, styleURL: try url(BuildIndex.stylesheetName)
        ) { folder, file in try url(folder + "/" + file) }
        try beforeWriting()

        let newest = Self.newestPerEnvironment(stored)
        for release in newest {
            let latest = release.environment + "/" + Self.latestName + "/"
            let buildInfo = key(release.folder + "/" + Self.buildInfoName)
            try copy(to: latest + Self.buildInfoName, tags: tags, unlessTagged: sourceTags[buildInfo], contentType: "application/json") {
                release.buildJSON
            }
            let page = key(release.folder + "/index.html")
            guard sourceTags[page] != nil else {
                problems.append("s3://\(location.bucket)/\(page): is missing, so \(latest)index.html still shows an older release")
                continue
            }
            do {
                try copy(to: latest + "index.html", tags: tags, unlessTagged: sourceTags[page], contentType: "text/html") {
                    try client.getObject(bucket: location.bucket, key: page).data
                }
            } catch let failure as Diagnostic where failure.code == .storage(.notFound) {
                problems.append("s3://\(location.bucket)/\(page): was removed, so \(latest)index.html still shows an older release")
            }
        }
        try client.putObject(
            bucket: location.bucket, key: key("index.html"), body: .data(Data(html.utf8)), contentType: "text/html",
            condition: Self.condition(tags[key("index.html")]), cacheControl: Self.revalidate)
        return StoreIndexUpdate(
            releaseCount: stored.count, problems: problems, url: try url("index.html"), latest: newest.map(\.folder), attempts: 1)
    }

    /// The entity tag of every object under the prefix, by key.
    private func entityTags() throws -> [String: String] {
        let objects = try client.listObjects(bucket: location.bucket, prefix: location.prefix).objects
        return Dictionary(objects.map { ($0.key, $0.etag) }, uniquingKeysWith: { first, _ in first })
    }

    /// Writes `body()` to `relative` on condition that it still has the tag in `tags` (or is still
    /// absent), unless that tag is `sourceTag` (it already holds the same bytes).
    private func copy(
        to relative: String, tags: [String: String], unlessTagged sourceTag: String?, contentType: String, body: () throws -> Data
    ) throws {
        let target = key(relative)
        guard sourceTag == nil || tags[target] != sourceTag else { return }
        try client.putObject(
            bucket: location.bucket, key: target, body: .data(try body()), contentType: contentType,
            condition: Self.condition(tags[target]),
            cacheControl: Self.revalidate)
    }

    /// Each environment's newest release (as the index orders them), by environment (the folder's name).
    static func newestPerEnvironment(_ releases: [StoredRelease]) -> [StoredRelease] {
        Dictionary(grouping: releases, by: \.environment).sorted { UTF8Order.precedes($0.key, $1.key) }.compactMap {
            _, group in
            let first = BuildIndex.newestFirst(group.map(\.release)).first
            return group.first { $0.folder == first?.folder }
        }
    }

    /// `If-Match` on `tag`, or `If-None-Match: *` when there was no object.
    static func condition(_ tag: String?) -> WriteCondition { tag.map { .ifMatch($0) } ?? .ifAbsent }

    /// The index and `latest` change with every publish: caches (a CDN in front of a public bucket)
    /// must ask again each time.
    static let revalidate = "no-cache"

    /// A random pause of about 50 ms doubling with each attempt, at most about 1.5 s, so publishers
    /// that collided do not collide again.
    static func pause(_ attempt: Int) {
        let base = min(1.0, 0.05 * Double(1 << min(attempt - 1, 10)))
        Thread.sleep(forTimeInterval: base * Double.random(in: 0.5...1.5))
    }
}
