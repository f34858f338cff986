import AdhocBuildKit
import CommandLineOptions
import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild prune DIST --keep N [--older-than AGE] [--env NAME] [--yes]`: retention for a folder of
/// releases.
enum PruneCommand {
    struct Options: CommandOptions {
        var dist = ""
        var keep: String?
        var olderThan: String?
        var environment: String?
        var title: String?
        var yes = false
        var json = false
        var store = StoreOptions()
        var allowHTTP = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(
                    \.dist, "DIST|s3://BUCKET/PREFIX/",
                    help: "The folder of releases that release --out writes (DIST/<env>/<version>-<build>/), or a store publish writes to."),
                .option(
                    \.keep, "--keep", name: "N",
                    kind: .checked(expectation: "a whole number of 1 or more", accepts: { Int($0).map { $0 >= 1 } ?? false }),
                    help: "Keep the N newest releases of each environment.", defaultDescription: "no count rule"),
                .option(
                    \.olderThan, "--older-than", name: "AGE",
                    kind: .checked(expectation: "a length of time like 30d, 12h, 90m or 1d12h", accepts: { TimeSpan($0) != nil }),
                    help: "Remove only releases published longer ago than AGE.", defaultDescription: "no age rule"),
                .option(
                    \.environment, "--env", name: "NAME", help: "Only this environment's releases.", defaultDescription: "every environment"
                ),
                .option(\.title, "--title", name: "TEXT", help: "The index's title.", defaultDescription: "the index's current title"),
                .flag(\.yes, "--yes", help: "Remove them; without it prune lists what it would remove and removes nothing."),
                .flag(\.json, "--json", help: "Print JSON."),
                .group(\.store), StoreOptions.allowHTTPOption(\.allowHTTP)
            ]
        }
    }

    static var command: CommandSpec {
        CommandSpec(
            name: "prune",
            abstract: "Remove old releases from DIST or a store (--keep N, --older-than AGE); never the one latest points to.",
            discussion: """
                With --keep and --older-than, a release goes only when it is outside the N newest and older than AGE. \
                Never removed: the release an environment's latest link points to, and each environment's newest. A \
                release whose date does not read sorts as the oldest, but --older-than keeps it (its age is unknown). \
                Without --yes nothing is removed: each release that would go is listed. With --yes, under DIST's lock, \
                a latest link that points at nothing is pointed at its folder's newest release, the index is rewritten \
                without the releases that go, and each goes whole (renamed to a hidden name, then deleted).
                """,
            options: Options.self
        ) { options, parsed in
            let keep = options.keep.flatMap { Int($0) }, olderThan = options.olderThan.flatMap { TimeSpan($0) }
            if let problem = RetentionPlan.Rules.problem(keep: keep, olderThan: olderThan) { throw parsed.usageError(problem) }
            let rules = try RetentionPlan.Rules(keep: keep, olderThan: olderThan, environment: options.environment)
            let outcome: LocalPrune.Outcome
            var shownAs = options.dist
            if options.dist.hasPrefix("s3://") {
                var prune = StorePrune(
                    store: try ReleaseStore.open(options.dist, settings: options.store.settings(allowHTTP: options.allowHTTP)), rules: rules
                )
                prune.title = options.title
                outcome = options.yes ? try prune.apply() : try prune.survey()
                shownAs = String(prune.store.location.description.dropLast())  // s3://bucket/prefix/ ends in '/'

            } else {
                var prune = LocalPrune(dist: options.dist, rules: rules)
                prune.title = options.title
                outcome = options.yes ? try prune.apply() : try prune.survey()
            }
            let report = PruneReport(dist: shownAs, outcome: outcome, applied: options.yes)
            if options.json {
                Console.out(try PropertyList.encode(report.json, format: .json))
            } else {
                for warning in report.warnings { Console.warning(warning) }
                Console.lines(report.lines)
            }
            return 0
        }
    }
}
