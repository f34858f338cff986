import Foundation
import Manifest
import ObjectStorage
import SystemSupport

/// Mints new links for a release already in a store (`adhocbuild links`), without its ipa and without
/// building anything: its `page.json`, `build.json` and `version.json` are read from the store, and its
/// page, manifest, `build.json` and `version.json` written again with links valid from now.
public struct ReleaseLinkRefresh: Sendable {
    public let store: ReleaseStore
    /// The templates the page was written with (`--templates`), when not the defaults.
    public var templatesFolder: String?

    public init(store: ReleaseStore) { self.store = store }

    /// Where a release is, given as `s3://BUCKET/PREFIX/<env>/<version>-<build>/`: the store at
    /// `s3://BUCKET/PREFIX/` and the release's environment and name.
    public static func split(_ location: String) throws -> (store: String, environment: String, name: String) {
        let parsed = try S3Location(parsing: location)
        let segments = parsed.prefix.split(separator: "/").map(String.init)
        guard segments.count >= 2 else {
            throw Diagnostic.storage(
                .invalidArgument, "'\(location)' does not name a release", hint: "write s3://BUCKET/PREFIX/<env>/<version>-<build>/")
        }
        let root = segments.dropLast(2).map { $0 + "/" }.joined()
        return ("s3://\(parsed.bucket)/\(root)", segments[segments.count - 2], segments[segments.count - 1])
    }

    /// Writes the release's files that hold links again, with links from now, then the store's index
    /// (its links minted again too, and `latest` copied again when this release is the newest), keeping
    /// its title; returns the release's links and the index's update.
    public func refresh(environment: String, name: String) throws -> (links: ReleaseLinks, index: StoreIndexUpdate) {
        let release = ReleaseStore.releaseFolder(environment: environment, name: name)
        let bucket = store.location.bucket
        func get(_ file: String) throws -> Data? {
            try store.client.getObjectIfPresent(bucket: bucket, key: store.key(release + "/" + file))?.data
        }
        let shownAt = store.location.appending(release).description
        guard let buildJSON = try get("build.json") else {
            throw Diagnostic.build("is not a published release: it has no build.json", file: shownAt)
        }
        guard let pageJSON = try get(PageContent.fileName) else {
            throw Diagnostic.build("has no page.json (published by an older adhocbuild); publish it again", file: shownAt)
        }
        let content = try inFile(shownAt + PageContent.fileName, only: ManifestProblem.self) { try PageContent(json: pageJSON) }
        let info = try inFile(shownAt + "build.json", only: ManifestProblem.self) { try BuildInfo(json: buildJSON) }
        let links = try ReleaseLinks(ipaName: content.ipaName) { try store.url(release + "/" + $0) }
        let files = try inFile(shownAt, only: ManifestProblem.self) {
            try ReleaseUpload.rewrite(
                content: content, info: info, versionFeed: try get("version.json"), links: links, templatesFolder: templatesFolder)
        }
        // build.json last, as when it was published.
        for file in files.keys.filter({ $0 != "build.json" }).sorted() + ["build.json"] {
            let data = files[file]!
            try store.client.putObject(
                bucket: bucket, key: store.key(release + "/" + file), body: .data(data), contentType: ReleaseUpload.contentType(of: file))
        }
        return (links, try store.updateIndex(title: try store.currentIndexTitle() ?? "Builds"))
    }
}
