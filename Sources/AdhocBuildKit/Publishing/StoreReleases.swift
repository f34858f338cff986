import Foundation
import Manifest
import ObjectStorage
import SystemSupport

extension ReleaseStore {
    /// How many `build.json` files are read at once.
    static let buildInfoReaders = 8

    /// One published release as the store holds it: where it is, its `build.json`'s bytes (copied
    /// as they are to `<env>/latest/build.json`) and what they say.
    struct StoredRelease: Sendable {
        var environment: String
        var name: String
        var buildJSON: Data
        var info: BuildInfo

        /// `<env>/<name>`, relative to the prefix.
        var folder: String { ReleaseStore.releaseFolder(environment: environment, name: name) }
        var release: BuildIndex.Release { BuildIndex.Release(folder: folder, info: info) }
    }

    /// Every release published in the store (each `<env>/<name>/build.json` under the prefix, read
    /// 8 at a time), ordered by folder, and one line per `build.json` that cannot be read, naming
    /// its `s3://bucket/key`. `latest` and folders whose name starts with `.` are not releases.
    ///
    /// Throws when the store cannot be listed or a `build.json` cannot be fetched (no answer,
    /// access denied): an index made from part of the store would drop releases. One removed
    /// since the listing is no longer published and is left out.
    public func releases() throws -> (releases: [BuildIndex.Release], problems: [String]) {
        let read = try storedReleases(in: try client.listObjects(bucket: location.bucket, prefix: location.prefix))
        return (read.releases.map(\.release), read.problems)
    }

    /// Whether `<env>/<name>` is published: its `build.json` is in the store (it is uploaded last).
    public func isPublished(environment: String, name: String) throws -> Bool {
        let relative = Self.releaseFolder(environment: environment, name: name) + "/" + Self.buildInfoName
        return try client.headObject(bucket: location.bucket, key: key(relative)) != nil
    }

    /// What reading one `build.json` gave.
    enum BuildInfoRead: Sendable {
        case release(StoredRelease)
        case problem(String)
        /// Removed since the listing: no longer published.
        case gone
    }

    /// The `build.json` files already read, by entity tag and key, so that an index update that
    /// starts again fetches only those added or changed since.
    typealias BuildInfoReads = Locked<[String: BuildInfoRead]>

    /// The releases whose `build.json` is in `listing` (a listing of the prefix), read in parallel,
    /// or taken from `reads` when read before with the same entity tag.
    func storedReleases(in listing: ObjectListing, reads: BuildInfoReads = BuildInfoReads([:])) throws -> (
        releases: [StoredRelease], problems: [String]
    ) {
        let candidates = listing.objects.compactMap { object in releaseFolder(ofBuildInfoKey: object.key).map { (object, $0) } }
            .sorted { UTF8Order.precedes($0.0.key, $1.0.key) }
        let outcomes = Locked<[Int: BuildInfoRead]>([:])
        let pool = WorkerPool(label: "store build.json", capacity: Self.buildInfoReaders)
        for (index, (object, folder)) in candidates.enumerated() {
            guard !pool.hasFailed else { break }
            pool.submit { [self] in
                let name = "s3://\(location.bucket)/\(object.key)"
                let readBefore = object.etag + " " + object.key
                let outcome: BuildInfoRead
                if let read = reads.withLock({ $0[readBefore] }) {
                    outcome = read
                } else if object.size > Int64(InputLimits.buildInfo) {
                    outcome = .problem("\(name): is \(object.size) bytes, more than a build.json may hold (\(InputLimits.buildInfo))")
                } else {
                    do {
                        let data = try client.getObject(bucket: location.bucket, key: object.key).data
                        let info = try BuildInfo(json: data)
                        outcome = .release(StoredRelease(environment: folder.environment, name: folder.name, buildJSON: data, info: info))
                    } catch let failure as Diagnostic where failure.code == .manifest(.buildInfo) {
                        outcome = .problem("\(name): \(failure.description)")
                    } catch let failure as Diagnostic where failure.code == .storage(.notFound) {
                        outcome = .gone
                    }
                }
                outcomes.withLock { $0[index] = outcome }
                if case .gone = outcome {} else { reads.withLock { $0[readBefore] = outcome } }
            }
        }
        try pool.wait()
        var releases: [StoredRelease] = []
        var problems: [String] = []
        for (_, outcome) in outcomes.value.sorted(by: { $0.key < $1.key }) {
            switch outcome {
            case .release(let release): releases.append(release)
            case .problem(let problem): problems.append(problem)
            case .gone: break
            }
        }
        return (releases, problems)
    }

    /// `(env, name)` when `key` is exactly `PREFIX<env>/<name>/build.json` with neither name
    /// `latest` nor starting with `.` (a release still being assembled), else nil.
    func releaseFolder(ofBuildInfoKey key: String) -> (environment: String, name: String)? {
        guard key.hasPrefix(location.prefix) else { return nil }
        let parts = key.dropFirst(location.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == Self.buildInfoName,
            parts[0...1].allSatisfy({ !$0.isEmpty && $0 != Self.latestName && !$0.hasPrefix(".") })
        else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// A release's `build.json`, and the folder beside the releases that holds copies of the newest.
    static let buildInfoName = "build.json"
    static let latestName = "latest"
}

extension ReleaseStore {
    /// The title of the store's index as it is now; nil when there is no index yet, or it has no title.
    public func currentIndexTitle() throws -> String? {
        try client.getObjectIfPresent(bucket: location.bucket, key: key("index.html")).flatMap { BuildIndex.title(inIndexHTML: $0.data) }
    }
}
