import AdhocBuildKit
import Foundation
import PlistKit

/// What `prune` prints: a line per release it removes (or would), per `latest` link it repoints, and
/// a last line; or the same as JSON.
struct PruneReport {
    var dist: String
    var outcome: LocalPrune.Outcome
    /// Whether the releases were removed (`--yes`), or only listed.
    var applied: Bool

    var lines: [String] {
        let plan = outcome.plan
        var lines = plan.removals.map { "\(applied ? "removed" : "would remove") \($0.folder) (\(Self.published($0)))" }
        lines += outcome.repairs.map { repair in
            applied
                ? "\(repair.link) now points at \(repair.target) (it pointed at \(repair.previous), which is not there)"
                : "would point \(repair.link) at \(repair.target) (it points at \(repair.previous), which is not there)"
        }
        let total = plan.removals.count + plan.kept.count
        if plan.removals.isEmpty && outcome.repairs.isEmpty {
            lines.append("nothing to remove: \(Self.count(total)) kept")
        } else if !applied {
            lines.append(
                "\(plan.removals.count) of \(Self.count(total)) would be removed; run again with --yes to remove "
                    + (plan.removals.count == 1 ? "it" : "them"))
        } else if let indexed = outcome.indexed {
            lines.append("\(dist)/index.html: \(Self.count(indexed))")
        }
        return lines
    }

    var warnings: [String] {
        outcome.problems
            + outcome.plan.undated.map { release in
                "\(dist)/\(release.folder): kept: its date \(release.date.map { "'\($0)'" } ?? "(none)") does not read, "
                    + "so --older-than cannot tell its age"
            }
            + outcome.leftovers.map { "\($0): could not be deleted; the next prune or release into its folder deletes it" }
    }

    var json: PlistValue {
        func entry(_ release: RetentionPlan.Release) -> PlistValue {
            var entry = PlistDictionary()
            entry["environment"] = .string(release.environment)
            entry["folder"] = .string(release.folder)
            entry["date"] = release.date.map(PlistValue.string)
            return .dictionary(entry)
        }
        var dict = PlistDictionary()
        dict["removed"] = .bool(applied)
        dict["remove"] = .array(outcome.plan.removals.map(entry))
        dict["keep"] = .array(outcome.plan.kept.map(entry))
        dict["latest"] = .array(
            outcome.repairs.map { repair in
                var entry = PlistDictionary()
                entry["link"] = .string(repair.link)
                entry["previous"] = .string(repair.previous)
                entry["target"] = .string(repair.target)
                return .dictionary(entry)
            })
        dict["indexed"] = outcome.indexed.map { .integer(PlistInteger($0)) }
        dict["warnings"] = .array(warnings.map(PlistValue.string))
        return .dictionary(dict)
    }

    /// `published 2026-10-01 10:00 UTC`, or why there is no such time.
    static func published(_ release: RetentionPlan.Release) -> String {
        guard let date = release.published else {
            return release.date.map { "published '\($0)', a date that does not read" } ?? "no publication date"
        }
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "published %04d-%02d-%02d %02d:%02d UTC", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min))
    }

    static func count(_ releases: Int) -> String { "\(releases) release\(releases == 1 ? "" : "s")" }
}
