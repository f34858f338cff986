import Foundation
import Manifest
import ObjectStorage
import SystemSupport

/// `adhocbuild prune s3://BUCKET/PREFIX/`: removes the releases a ``RetentionPlan`` names from a store,
/// then rebuilds its index and `latest` copies from what is left.
///
/// The releases and what `latest` holds are read from the store (each environment's `latest` is its
/// newest release, which the plan never removes). ``apply()`` goes in three steps, so that the index
/// never lists a release whose files are gone: each release that goes is unpublished first (its
/// `build.json` deleted: its page and ipa still answer), then the index is rebuilt without them (with
/// the conditional writes every publisher uses, so a publish at the same moment is not lost), then
/// their other objects and any unfinished multipart uploads are deleted. A run stopped between steps
/// leaves unpublished releases' files that the next `prune` or a publish of the same name cleans up.
public struct StorePrune: Sendable {
    public var store: ReleaseStore
    public var rules: RetentionPlan.Rules
    /// The time `--older-than` counts back from.
    public var now = Date()
    /// The index's title; nil keeps the title the store's index has (`Builds` when there is none).
    public var title: String?

    public init(store: ReleaseStore, rules: RetentionPlan.Rules) {
        self.store = store
        self.rules = rules
    }

    /// What prune would remove, changing nothing. Throws when `--env` names an environment the store
    /// has no release of.
    public func survey() throws -> LocalPrune.Outcome {
        let (found, problems) = try store.releases()
        let releases = found.map { RetentionPlan.Release(environment: $0.environment, folder: $0.folder, date: $0.info.date) }
        if let problem = rules.environmentProblem(in: releases) {
            throw Diagnostic.storage(.invalidArgument, problem, subject: store.location.description)
        }
        // What each environment's `latest` copies: its newest release by folder, as the index update chooses it.
        let latest = Dictionary(grouping: found, by: { Self.split($0.folder).environment }).values.compactMap {
            BuildIndex.newestFirst($0).first?.folder
        }
        let plan = RetentionPlan(releases: releases, latest: Set(latest), rules: rules, now: now)
        return LocalPrune.Outcome(plan: plan, repairs: [], problems: problems, indexed: nil)
    }

    /// Removes what ``survey()`` names, as the type's description says, and returns what it did.
    public func apply() throws -> LocalPrune.Outcome {
        var outcome = try survey()
        guard !outcome.plan.removals.isEmpty else { return outcome }
        let title = try self.title ?? store.currentIndexTitle() ?? "Builds"
        for release in outcome.plan.removals {
            try store.client.deleteObject(bucket: store.location.bucket, key: store.key(release.folder + "/build.json"))
        }
        Interruption.pause(at: "prune:unpublished")
        let index = try store.updateIndex(title: title)
        outcome.indexed = index.releaseCount
        outcome.problems += index.problems
        for release in outcome.plan.removals {
            let (environment, name) = Self.split(release.folder)
            try store.removeRelease(environment: environment, name: name)
        }
        return outcome
    }

    /// `<env>/<name>` split at its first `/`.
    static func split(_ folder: String) -> (environment: String, name: String) {
        guard let slash = folder.firstIndex(of: "/") else { return (folder, "") }
        return (String(folder[..<slash]), String(folder[folder.index(after: slash)...]))
    }
}
