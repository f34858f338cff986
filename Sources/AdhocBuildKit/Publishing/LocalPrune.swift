import Foundation
import Manifest
import SystemSupport

/// `adhocbuild prune DIST`: removes the releases a ``RetentionPlan`` names from a local DIST, then
/// rewrites the index, and points a `latest` link that points at nothing (a release deleted by hand)
/// at its folder's newest remaining release.
///
/// ``survey()`` only reads. ``apply()`` runs under DIST's lock (the one `release` takes to publish)
/// and as a point of no return (an interrupt waits for it). The index is written first, without the
/// releases that go; then each release folder is renamed to a hidden temporary name in its own folder
/// and deleted, so the index never lists a release that is missing or half there. When a `latest`
/// link, the index or a rename cannot be written, every folder is renamed back, the index rewritten
/// and DIST is as it was. A hidden folder a kill leaves behind is removed by the next `prune` or
/// `release` into that folder.
public struct LocalPrune {
    /// A `latest` link that points at nothing, and the release it is pointed at instead.
    public struct LatestRepair: Sendable, Equatable {
        /// The link, relative to DIST: `Staging/latest`.
        public var link: String
        /// What it pointed at.
        public var previous: String
        /// The newest release left in its folder (a name in that folder).
        public var target: String
    }

    /// What a survey found, or what ``apply()`` did.
    public struct Outcome: Sendable {
        public var plan: RetentionPlan
        public var repairs: [LatestRepair]
        /// The `build.json` files that do not read, as `index` reports them; their folders are left alone.
        public var problems: [String]
        /// How many releases the rewritten index lists; nil when it was not rewritten.
        public var indexed: Int?
        /// Hidden folders of removed releases that could not be deleted (the next run deletes them).
        public var leftovers: [String] = []
    }

    /// DIST.
    public var dist: String
    public var rules: RetentionPlan.Rules
    /// The time `--older-than` counts back from.
    public var now = Date()
    /// The index's title; nil keeps the title the index has (`Builds` when there is none).
    public var title: String?

    public init(dist: String, rules: RetentionPlan.Rules) {
        self.dist = dist
        self.rules = rules
    }

    /// What prune would remove and repair, changing nothing. Throws when DIST is not a folder, or
    /// when `--env` names an environment DIST has no release of.
    public func survey() throws -> Outcome {
        switch FileIO.kind(of: dist) {
        case nil: throw Diagnostic.io("no such folder", file: dist)
        case .file: throw Diagnostic.io("is a file, not a folder", file: dist)
        case .folder: break
        }
        let (found, problems) = try BuildIndex.releases(in: dist)
        let releases = found.map { RetentionPlan.Release(environment: $0.environment, folder: $0.folder, date: $0.info.date) }
        if let problem = rules.environmentProblem(in: releases) { throw Diagnostic.io(problem, file: dist) }
        let considered = releases.filter { rules.environment == nil || $0.environment == rules.environment }
        let folders = Set(considered.map { Self.parent($0.folder) })
        // The release folders the `latest` links point to, compared by their real paths.
        var targets: Set<String> = []
        var dangling: [String: String] = [:]
        for folder in folders {
            let link = Self.join(folder, "latest")
            guard let previous = FileIO.linkTarget(path(link)) else { continue }
            if let target = Self.realPath(path(link)) { targets.insert(target) } else { dangling[link] = previous }
        }
        let latest = targets.isEmpty ? [] : Set(considered.map(\.folder).filter { Self.realPath(path($0)).map(targets.contains) == true })
        let plan = RetentionPlan(releases: releases, latest: latest, rules: rules, now: now)
        let repairs = dangling.keys.sorted().compactMap { link -> LatestRepair? in
            let left = plan.kept.filter { Self.parent($0.folder) == Self.parent(link) }
            let newest = left.min { BuildIndex.isNewer(date: $0.date ?? "", folder: $0.folder, than: $1.date ?? "", folder: $1.folder) }
            guard let newest else { return nil }
            return LatestRepair(link: link, previous: dangling[link]!, target: (newest.folder as NSString).lastPathComponent)
        }
        return Outcome(plan: plan, repairs: repairs, problems: problems, indexed: nil)
    }

    /// Removes what ``survey()`` (made again under DIST's lock) names, repairs dangling `latest`
    /// links and rewrites the index; all of it or nothing. The index is written first, without the
    /// releases that go, then each of them is renamed to a hidden name and deleted: a kill at any
    /// point leaves no listed release missing or half there.
    public func apply() throws -> Outcome {
        try DirectoryLock.withLock(dist) {
            var outcome = try survey()
            for folder in Set((outcome.plan.removals + outcome.plan.kept).map({ Self.parent($0.folder) })) {
                FileIO.removeStaleTemporaries(in: path(folder))
            }
            guard !outcome.plan.removals.isEmpty || !outcome.repairs.isEmpty else { return outcome }
            let previousTitle = try Self.currentTitle(of: path("index.html")) ?? "Builds"
            let latestBefore = Set(outcome.plan.kept.map { Self.join(Self.parent($0.folder), "latest") }).filter {
                Self.realPath(path($0)) != nil
            }
            try Interruption.pointOfNoReturn(done: "\(dist) was pruned") {
                var hidden: [String] = []
                var undo: [() -> Void] = []
                do {
                    for repair in outcome.repairs {
                        try ReleasePublication.point(path(repair.link), at: repair.target)
                        undo.append { [link = path(repair.link)] in try? ReleasePublication.point(link, at: repair.previous) }
                    }
                    let going = Set(outcome.plan.removals.map(\.folder))
                    outcome.indexed = try BuildIndex.write(in: dist, title: title ?? previousTitle, leavingOut: going).releases
                    undo.append { [dist] in _ = try? BuildIndex.write(in: dist, title: previousTitle) }
                    Interruption.pause(at: "prune:indexed")
                    for release in outcome.plan.removals {
                        let folder = path(release.folder)
                        let temporary = FileIO.temporaryPath(for: folder)
                        guard rename(folder, temporary) == 0 else { throw Diagnostic.system("cannot be removed", file: folder) }
                        hidden.append(temporary)
                        undo.append { _ = rename(temporary, folder) }
                    }
                } catch {
                    for step in undo.reversed() { step() }
                    throw error
                }
                Interruption.pause(at: "prune:hidden")
                for temporary in hidden {
                    try? FileManager.default.removeItem(atPath: temporary)
                    if FileIO.kind(of: temporary) != nil { outcome.leftovers.append(temporary) }
                }
            }
            for link in latestBefore where Self.realPath(path(link)) == nil {
                throw Diagnostic.io("points at nothing after pruning; release again or point it at a release", file: path(link))
            }
            return outcome
        }
    }

    /// `relative` (a folder below DIST) as a path.
    func path(_ relative: String) -> String { Self.join(dist, relative) }

    static func join(_ folder: String, _ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }

    /// The folder holding `relative`, `""` for DIST itself.
    static func parent(_ relative: String) -> String { (relative as NSString).deletingLastPathComponent }

    /// `path` with every link resolved; nil when it points at nothing.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The `<title>` of the index at `path`, its character references undone; nil when there is no
    /// index or no title.
    static func currentTitle(of path: String) throws -> String? {
        guard FileIO.kind(of: path) == .file else { return nil }
        return BuildIndex.title(inIndexHTML: try FileIO.read(path, limit: 64 << 20))
    }
}
