import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 34, retention: which releases `prune` removes, rule by rule, on plain values.
@Suite struct RetentionPlanTests {
    /// 2026-12-06T12:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_796_558_400)

    /// A release of `environment` published `days` before ``now`` (nil: no date).
    static func release(_ environment: String, _ name: String, daysAgo days: Double?) -> RetentionPlan.Release {
        let date = days.map { iso(now.addingTimeInterval(-$0 * 86_400)) }
        return RetentionPlan.Release(environment: environment, folder: environment + "/" + name, date: date)
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static func plan(
        _ releases: [RetentionPlan.Release], latest: Set<String> = [], keep: Int? = nil, olderThan: String? = nil,
        environment: String? = nil
    ) throws -> RetentionPlan {
        let rules = try RetentionPlan.Rules(keep: keep, olderThan: olderThan.flatMap(TimeSpan.init), environment: environment)
        return RetentionPlan(releases: releases.shuffled(), latest: latest, rules: rules, now: now)
    }

    @Test func keepKeepsTheNNewestOfEachEnvironment() throws {
        let releases = [
            Self.release("Staging", "1.0-1", daysAgo: 40), Self.release("Staging", "1.0-2", daysAgo: 30),
            Self.release("Staging", "1.0-3", daysAgo: 20), Self.release("Staging", "1.0-4", daysAgo: 10),
            Self.release("QA", "1.0-1", daysAgo: 50), Self.release("QA", "1.0-2", daysAgo: 45)
        ]
        let plan = try Self.plan(releases, keep: 2)
        #expect(plan.removals.map(\.folder) == ["Staging/1.0-2", "Staging/1.0-1"])
        #expect(plan.kept.map(\.folder) == ["QA/1.0-2", "QA/1.0-1", "Staging/1.0-4", "Staging/1.0-3"])
        #expect(try Self.plan(releases, keep: 4).removals.isEmpty)
    }

    /// The index's order: releases of the same second put the higher build first, numerically.
    @Test func releasesOfTheSameSecondAreOrderedByTheirNumbers() throws {
        let releases = ["1.4.0-9", "1.4.0-100", "1.4.0-99"].map { Self.release("Staging", $0, daysAgo: 3) }
        #expect(try Self.plan(releases, keep: 1).removals.map(\.folder) == ["Staging/1.4.0-99", "Staging/1.4.0-9"])
    }

    /// Dates with offsets compare by the instant, as the index compares them.
    @Test func datesWithOffsetsCompareByTheInstant() throws {
        let releases = [
            RetentionPlan.Release(environment: "Staging", folder: "Staging/a", date: "2026-06-01T00:30:00+02:00"),
            RetentionPlan.Release(environment: "Staging", folder: "Staging/b", date: "2026-05-31T23:00:00Z")
        ]
        #expect(try Self.plan(releases, keep: 1).removals.map(\.folder) == ["Staging/a"])
    }

    @Test func olderThanRemovesOnlyReleasesPublishedLongerAgo() throws {
        let releases = [10, 29.9, 30, 30.1, 45].map { Self.release("Staging", "1.0-\(Int($0 * 10))", daysAgo: $0) }
        let plan = try Self.plan(releases, olderThan: "30d")
        #expect(plan.removals.map(\.folder) == ["Staging/1.0-301", "Staging/1.0-450"])
        #expect(plan.kept.map(\.folder) == ["Staging/1.0-100", "Staging/1.0-299", "Staging/1.0-300"])
    }

    /// Both rules: a release goes only when it is outside the N newest and older than AGE.
    @Test func withBothRulesOnlyOldReleasesOutsideTheNewestGo() throws {
        let releases = [1, 2, 40, 50, 60].map { Self.release("Staging", "1.0-\($0)", daysAgo: Double($0)) }
        let plan = try Self.plan(releases, keep: 1, olderThan: "45d")
        #expect(plan.removals.map(\.folder) == ["Staging/1.0-50", "Staging/1.0-60"])
        let keepMore = try Self.plan(releases, keep: 4, olderThan: "1d")
        #expect(keepMore.removals.map(\.folder) == ["Staging/1.0-60"])
    }

    @Test func theReleaseLatestPointsToIsNeverRemoved() throws {
        let releases = [1, 2, 3, 4].map { Self.release("Staging", "1.0-\($0)", daysAgo: Double($0) * 20) }
        let latest: Set = ["Staging/1.0-3"]
        #expect(try Self.plan(releases, latest: latest, keep: 1).removals.map(\.folder) == ["Staging/1.0-2", "Staging/1.0-4"])
        #expect(try Self.plan(releases, latest: latest, olderThan: "1d").removals.map(\.folder) == ["Staging/1.0-2", "Staging/1.0-4"])
        #expect(
            try Self.plan(releases, latest: latest, keep: 1, olderThan: "1d").removals.map(\.folder) == ["Staging/1.0-2", "Staging/1.0-4"])
    }

    /// With no `latest` link (a DIST that `page` wrote), each environment still keeps its newest release.
    @Test func theNewestReleaseOfEachEnvironmentIsAlwaysKept() throws {
        let releases = [
            Self.release("Staging", "1.0-1", daysAgo: 100), Self.release("Staging", "1.0-2", daysAgo: 90),
            Self.release("QA", "1.0-1", daysAgo: 80)
        ]
        let plan = try Self.plan(releases, olderThan: "1d")
        #expect(plan.removals.map(\.folder) == ["Staging/1.0-1"])
        #expect(plan.kept.map(\.folder) == ["QA/1.0-1", "Staging/1.0-2"])
    }

    /// A date that does not read sorts as the oldest: `--keep` removes it, `--older-than` cannot tell
    /// its age and keeps it (and says so through `undated`).
    @Test func anUnreadableDateCountsAsOldestButOlderThanKeepsIt() throws {
        let releases = [
            Self.release("Staging", "1.0-1", daysAgo: 100), Self.release("Staging", "1.0-2", daysAgo: 1),
            RetentionPlan.Release(environment: "Staging", folder: "Staging/1.0-3", date: "yesterday"),
            RetentionPlan.Release(environment: "Staging", folder: "Staging/1.0-4", date: nil)
        ]
        let byCount = try Self.plan(releases, keep: 2)
        #expect(byCount.removals.map(\.folder) == ["Staging/1.0-4", "Staging/1.0-3"])
        #expect(byCount.undated.isEmpty)
        let byAge = try Self.plan(releases, olderThan: "30d")
        #expect(byAge.removals.map(\.folder) == ["Staging/1.0-1"])
        #expect(byAge.undated.map(\.folder) == ["Staging/1.0-4", "Staging/1.0-3"])
        let both = try Self.plan(releases, keep: 1, olderThan: "30d")
        #expect(both.removals.map(\.folder) == ["Staging/1.0-1"])
        #expect(both.undated.map(\.folder) == ["Staging/1.0-4", "Staging/1.0-3"])
    }

    @Test func anEnvironmentFilterLeavesTheOthersOutOfThePlan() throws {
        let releases = [1, 2, 3].flatMap { day in
            ["Staging", "QA"].map { Self.release($0, "1.0-\(day)", daysAgo: Double(day)) }
        }
        let plan = try Self.plan(releases, keep: 1, environment: "QA")
        #expect(plan.removals.map(\.folder) == ["QA/1.0-2", "QA/1.0-3"])
        #expect(plan.kept.map(\.folder) == ["QA/1.0-1"])
    }

    @Test func rulesNeedKeepOrOlderThanAndAKeepOfOneOrMore() throws {
        #expect(RetentionPlan.Rules.problem(keep: nil, olderThan: nil)?.hasPrefix("give --keep N, --older-than AGE or both") == true)
        #expect(RetentionPlan.Rules.problem(keep: 0, olderThan: nil)?.hasPrefix("--keep takes 1 or more, not '0'") == true)
        #expect(RetentionPlan.Rules.problem(keep: -1, olderThan: TimeSpan("1d"))?.hasPrefix("--keep takes 1 or more, not '-1'") == true)
        #expect(RetentionPlan.Rules.problem(keep: 1, olderThan: nil) == nil)
        #expect(RetentionPlan.Rules.problem(keep: nil, olderThan: TimeSpan("0s")) == nil)
        #expect(throws: Diagnostic.self) { try RetentionPlan.Rules(keep: nil, olderThan: nil) }
        #expect(throws: Diagnostic.self) { try RetentionPlan.Rules(keep: 0, olderThan: TimeSpan("30d")) }
    }
}
