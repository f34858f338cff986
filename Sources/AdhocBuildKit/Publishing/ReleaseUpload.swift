import Foundation
import Manifest
import ObjectStorage
import PlistKit
import SystemSupport

/// Publishes one release folder (`DIST/<env>/<version>-<build>/`, as `release` and `page` write it) to a
/// ``ReleaseStore``: `publish`, and the last step of `release --publish`.
///
/// The page and the manifest are written again from the release's `page.json` with links into the
/// store (presigned, or under a public base), so that a tester's iPhone reaches every file with no
/// credentials; `build.json` and `version.json` name the same links. The files go up in parallel (the
/// ipa as a multipart upload when large), and `build.json` goes last: until it is there the release
/// is not published, not listed, and a run that stopped is simply run again. Multipart uploads a
/// killed run left under the release are aborted first, so no parts stay behind to be billed.
public struct ReleaseUpload: Sendable {
    /// What was published, and where testers open it.
    public struct Result: Sendable {
        public var environment: String
        public var name: String
        /// The page's link (presigned in private mode): what CI outputs and the QR code name.
        public var links: ReleaseLinks
        /// Where the release is: `s3://bucket/prefix/<env>/<name>/`.
        public var location: String
        public var files: Int
        public var bytes: Int64
        /// What was told but did not stop the upload (links iOS will not install from, `build.json`
        /// files of other releases the index could not read), each of severity `.warning`.
        public var warnings: [Diagnostic] = []
        /// The store's index, rebuilt once the release was published.
        public var index: StoreIndexUpdate?
    }

    public let store: ReleaseStore
    /// Replace a release that is already published.
    public var replace = false
    /// The folder of templates the page was written with (`--templates`), when not the defaults.
    public var templatesFolder: String?
    /// How many small files are sent at once (the ipa's parts have their own).
    public var concurrency = 8
    /// The title of the store's index, rebuilt once the release is published; nil leaves the index alone.
    public var indexTitle: String? = "Builds"

    public init(store: ReleaseStore) { self.store = store }

    /// The store's folder of the release in `folder` (`<env>/<version>-<build>`: the folder's name and its parent's).
    public static func storeFolder(of folder: String) throws -> (environment: String, name: String) {
        let parts = URL(fileURLWithPath: folder).standardizedFileURL.pathComponents.filter { $0 != "/" }
        guard parts.count >= 2, let name = parts.last, let environment = parts.dropLast().last else {
            throw Diagnostic.build("is not a release folder DIST/<env>/<version>-<build>", file: folder)
        }
        for part in [environment, name] where part.hasPrefix(".") || part == "latest" {
            throw Diagnostic.build("is not a release folder DIST/<env>/<version>-<build>: '\(part)' cannot name one", file: folder)
        }
        return (environment, name)
    }

    /// Refuses a release already published in the store, unless ``replace``: checked before anything is
    /// packaged or uploaded.
    public func checkNotPublished(environment: String, name: String) throws {
        guard !replace, try store.isPublished(environment: environment, name: name) else { return }
        let folder = ReleaseStore.releaseFolder(environment: environment, name: name)
        throw Diagnostic.build(
            "is already published, and testers may be installing it; give the build a new number, or pass --replace to replace it",
            file: store.location.appending(folder).description)
    }

    /// Uploads the release in `folder`; see the type's description.
    public func publish(_ folder: String) throws -> Result {
        let (environment, name) = try Self.storeFolder(of: folder)
        let release = ReleaseStore.releaseFolder(environment: environment, name: name)
        let content = try PageContent(
            json: try read(
                folder, PageContent.fileName, missing: "it was written by an older adhocbuild; write it again with `adhocbuild page`"))
        let info = try inFile(folder + "/build.json", only: ManifestProblem.self) {
            try BuildInfo(json: try read(folder, "build.json", missing: "it is not a release folder"))
        }
        let files = try Self.files(in: folder)
        guard files.contains(content.ipaName) else {
            throw Diagnostic.build("has no \(content.ipaName), the ipa its page installs", file: folder)
        }
        try checkNotPublished(environment: environment, name: name)
        abandonUnfinishedUploads(under: store.key(release + "/"))

        let links = try ReleaseLinks(ipaName: content.ipaName) { try store.url(release + "/" + $0) }
        let versionJSON = files.contains("version.json") ? try read(folder, "version.json", missing: "") : nil
        let replaced = try inFile(folder + "/" + PageContent.fileName, only: ManifestProblem.self) {
            try Self.rewrite(content: content, info: info, versionFeed: versionJSON, links: links, templatesFolder: templatesFolder)
        }
        let bytes = Locked<Int64>(0)
        // The largest first (the ipa), so its parts are under way while the small files go.
        let sizes = Dictionary(uniqueKeysWithValues: files.map { ($0, Self.size(folder + "/" + $0)) })
        let uploads = files.filter { $0 != "build.json" }.sorted { sizes[$0]! > sizes[$1]! }
        let pool = WorkerPool(label: "publish", capacity: max(1, concurrency))
        for file in uploads {
            pool.submit { [store] in
                let key = store.key(release + "/" + file)
                let type = Self.contentType(of: file)
                if let data = replaced[file] {
                    try store.client.putObject(bucket: store.location.bucket, key: key, body: .data(data), contentType: type)
                    bytes.withLock { $0 += Int64(data.count) }
                } else {
                    let path = folder + "/" + file
                    try store.client.uploadFile(bucket: store.location.bucket, key: key, path: path, contentType: type)
                    bytes.withLock { $0 += sizes[file]! }
                }
            }
        }
        try pool.wait()
        Interruption.pause(at: "publish:before build.json")
        let buildJSON = replaced["build.json"]!
        try store.client.putObject(
            bucket: store.location.bucket, key: store.key(release + "/build.json"), body: .data(buildJSON),
            contentType: Self.contentType(of: "build.json"))
        var result = Result(
            environment: environment, name: name, links: links, location: store.location.appending(release).description,
            files: files.count, bytes: bytes.value + Int64(buildJSON.count))
        if let indexTitle {
            Interruption.pause(at: "publish:before the index")
            let index = try store.updateIndex(title: indexTitle)
            result.index = index
            result.warnings += index.problems.map { Diagnostic.storage(.malformedResponse, $0).asWarning }
        }
        if links.manifest.lowercased().hasPrefix("http:") {
            result.warnings.append(
                Diagnostic.storage(
                    .invalidArgument, "the store's links use http: iOS will refuse to install from them; serve the store over https",
                    subject: store.location.description
                ).asWarning)
        }
        return result
    }

    /// The files of a release that name its links, written for `links`: the page and the manifest
    /// from `content`, `build.json` and `version.json` (when there is one) with the links in place of
    /// the ones they held. Keyed by file name.
    static func rewrite(
        content: PageContent, info: BuildInfo, versionFeed: Data?, links: ReleaseLinks, templatesFolder: String?
    ) throws -> [String: Data] {
        let rendered = try InstallPage.render(content, links: links, templates: try TemplateSet(folder: templatesFolder))
        var info = info
        links.apply(to: &info)
        var files = ["index.html": Data(rendered.page.utf8), "manifest.plist": rendered.manifest, "build.json": try info.jsonData()]
        if let versionFeed {
            guard case .dictionary(var feed) = try PropertyList(data: versionFeed).value else {
                throw Diagnostic.manifest("version.json is not a JSON object")
            }
            links.apply(to: &feed)
            files["version.json"] = try PropertyList.encode(.dictionary(feed), format: .json)
        }
        return files
    }

    /// Aborts the multipart uploads under `prefix` that a stopped run left (their parts are billed and
    /// never become an object). Best effort: a store that cannot list them is not a reason to stop.
    func abandonUnfinishedUploads(under prefix: String) {
        guard let uploads = try? store.client.listMultipartUploads(bucket: store.location.bucket, prefix: prefix) else { return }
        for upload in uploads {
            try? store.client.abortMultipartUpload(bucket: store.location.bucket, key: upload.key, uploadID: upload.uploadID)
        }
    }

    func read(_ folder: String, _ name: String, missing: String) throws -> Data {
        let path = folder + "/" + name
        guard FileIO.kind(of: path) != nil else { throw Diagnostic.build("has no \(name): \(missing)", file: folder) }
        return try FileIO.read(path, limit: InputLimits.buildInfo)
    }

    /// The release's files: every regular file in the folder (links followed), but hidden ones (the
    /// marker of an unfinished local publication) and folders.
    static func files(in folder: String) throws -> [String] {
        guard FileIO.kind(of: folder) == .folder else { throw Diagnostic.io("is not a folder", file: folder) }
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { name in
            var info = stat()
            return !name.hasPrefix(".") && stat(folder + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        }.sorted()
    }

    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// The `Content-Type` a store serves `file` with: what a browser and iOS expect of each.
    static func contentType(of file: String) -> String {
        switch (file as NSString).pathExtension.lowercased() {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "plist": return "application/xml"
        case "json": return "application/json"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        default: return "application/octet-stream"
        }
    }
}

extension ReleaseUpload {
    /// ``publish(_:)`` as the last step of `release --publish`: an upload that fails says how to finish it
    /// (the release is in DIST already, so `release` again would be refused as published there).
    func publishFinishing(_ folder: String, indexTitle: String) throws -> Result {
        var upload = self
        upload.indexTitle = indexTitle
        do {
            return try upload.publish(folder)
        } catch var error as Diagnostic {
            let finish = "the release is in \(folder); finish with: adhocbuild publish \(folder) \(store.location)"
            error.hint = [error.hint, finish].compactMap { $0 }.joined(separator: "; ")
            throw error
        }
    }
}
