import Foundation
import Manifest
import SystemSupport
import XcodeProjectEditing

/// Which releases `prune` removes: a pure decision over plain values (each release's environment,
/// folder and publication date, and the folders `latest` points to), so a local DIST and a store
/// plan alike.
///
/// The releases of each environment are ordered as the index orders them (``BuildIndex/isNewer(date:folder:than:folder:)``:
/// newest first by build.json's `date`, a date that does not read counting as the oldest). A release is
/// removed when every rule given says so:
/// - `--keep N`: it is not one of the N newest of its environment;
/// - `--older-than D`: it was published more than D before `now`.
///
/// With both, a release goes only when it is outside the N newest **and** older than D (each
/// rule narrows what is removed, as filters do). At least one rule is required.
///
/// Never removed, whatever the rules say:
/// - a release a `latest` link points to (testers' bookmarks and the CI's "latest" URL open it);
/// - the newest release of each environment, so an environment always keeps one release even where
///   no `latest` link points (a DIST written by `page` alone) or where it points elsewhere.
///
/// So `--keep 0` is refused: every environment keeps at least its newest release, and 0 would promise
/// what prune does not do; `--keep 1` keeps just that one (and the one `latest` names, if another).
///
/// A release whose date does not read (a hand-edited `yesterday`, or none) sorts as the oldest, so
/// `--keep` alone may remove it; but `--older-than` keeps it, since its age is unknown and the rule
/// promises to remove only releases known to be older than D. Such releases are listed in
/// ``undated`` so the command can say why they stay.
public struct RetentionPlan: Sendable, Equatable {
    /// One release as the plan sees it.
    public struct Release: Sendable, Equatable, Hashable {
        /// The environment it belongs to (build.json's `environment`; the index's group).
        public var environment: String
        /// Its folder below DIST or the store's prefix: `Staging/1.4.0-39`.
        public var folder: String
        /// When it was published, as build.json's `date` holds it (ISO 8601); nil when it has none.
        public var date: String?

        public init(environment: String, folder: String, date: String?) {
            self.environment = environment
            self.folder = folder
            self.date = date
        }

        /// The publication time, or nil when `date` is missing or does not read.
        public var published: Date? {
            date.flatMap(BuildIndex.seconds(fromISO8601:)).map(Date.init(timeIntervalSinceReferenceDate:))
        }
    }

    /// What to remove: `keep`, `olderThan` or both, within one environment or all.
    public struct Rules: Sendable, Equatable {
        /// How many of the newest releases of each environment to keep (1 or more); nil: no count rule.
        public var keep: Int?
        /// Remove only releases published longer ago than this; nil: no age rule.
        public var olderThan: TimeSpan?
        /// Only this environment's releases are considered; nil: every environment.
        public var environment: String?

        /// Checks the rules: at least one of `keep` and `olderThan`, and `keep` 1 or more.
        public init(keep: Int?, olderThan: TimeSpan?, environment: String? = nil) throws {
            if let problem = Self.problem(keep: keep, olderThan: olderThan) { throw Diagnostic.build(problem) }
            self.keep = keep
            self.olderThan = olderThan
            self.environment = environment
        }

        /// Why `--env` cannot apply to `releases` (none is of that environment), naming the ones there
        /// are; nil when it can, or when no environment was given.
        public func environmentProblem(in releases: [Release]) -> String? {
            guard let environment, !releases.contains(where: { $0.environment == environment }) else { return nil }
            let known = Set(releases.map(\.environment)).sorted()
            return "has no release of environment '\(environment)'"
                + (known.isEmpty ? "" : "; its environments are \(known.joined(separator: ", "))")
        }

        /// Why these rules cannot be applied, as a usage error says it; nil when they can.
        public static func problem(keep: Int?, olderThan: TimeSpan?) -> String? {
            if keep == nil && olderThan == nil { return "give --keep N, --older-than AGE or both: without a rule prune removes nothing" }
            if let keep, keep < 1 {
                return "--keep takes 1 or more, not '\(keep)': the newest release of each environment is always kept"
            }
            return nil
        }
    }

    /// The releases to remove: environments in name order, each newest first.
    public let removals: [Release]
    /// The releases considered and kept, in the same order.
    public let kept: [Release]
    /// Kept releases that `--keep` alone would have removed but whose date does not read, so
    /// `--older-than` cannot tell their age.
    public let undated: [Release]

    /// Plans for `releases` under `rules` at `now`, never removing a folder in `latest` (the folders
    /// the `latest` links point to) or the newest release of an environment.
    public init(releases: [Release], latest: Set<String>, rules: Rules, now: Date) {
        var removals: [Release] = [], kept: [Release] = [], undated: [Release] = []
        let considered = releases.filter { rules.environment == nil || $0.environment == rules.environment }
        let groups = Dictionary(grouping: considered, by: \.environment)
        for environment in groups.keys.sorted() {
            let ordered = groups[environment]!.sorted {
                BuildIndex.isNewer(date: $0.date ?? "", folder: $0.folder, than: $1.date ?? "", folder: $1.folder)
            }
            for (position, release) in ordered.enumerated() {
                let protected = position == 0 || latest.contains(release.folder)
                let outsideKeep = rules.keep.map { position >= $0 } ?? true
                var oldEnough = true
                if let span = rules.olderThan {
                    if let published = release.published {
                        oldEnough = now.timeIntervalSince(published) > Double(span.seconds)
                    } else {
                        oldEnough = false
                        if !protected && outsideKeep { undated.append(release) }
                    }
                }
                if !protected && outsideKeep && oldEnough { removals.append(release) } else { kept.append(release) }
            }
        }
        self.removals = removals
        self.kept = kept
        self.undated = undated
    }
}
