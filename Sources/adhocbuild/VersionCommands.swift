import AdhocBuildKit
import CodeSign
import CommandLineOptions
import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild version …`: agvtool for Linux.
enum VersionCommands {
    static var command: CommandSpec {
        CommandSpec(
            name: "version",
            abstract: "Show and bump build numbers and marketing versions (agvtool for Linux).",
            subcommands: [show, bump])
    }

    /// `--project` and `--plist`: what `version show` and `version bump` work on, unless an app is given.
    struct TargetOptions: CommandOptions {
        var project: String?
        var plist: String?
        static var declarations: [Declaration<Self>] {
            [
                .option(
                    \.project, "--project", name: "DIR", kind: .path,
                    help: "A source tree (the folder holding the .xcodeproj, or the .xcodeproj).", defaultDescription: "the current folder"),
                .option(\.plist, "--plist", name: "FILE", kind: .path, help: "A single Info.plist.")
            ]
        }

        /// The one thing a command works on: --project, --plist or a positional .app (default: the current folder's project).
        func target(app: String?, _ command: ParsedCommand) throws -> VersionBumper.Target {
            let given = [
                project.map { VersionBumper.Target.project($0) }, plist.map { VersionBumper.Target.plist($0) },
                app.map { VersionBumper.Target.app($0) }
            ].compactMap { $0 }
            guard given.count <= 1 else {
                throw command.usageError("give one of --project DIR, --plist FILE and APP")
            }
            return given.first ?? .project(".")
        }
    }

    struct ShowOptions: CommandOptions {
        var app: String?
        var target = TargetOptions()
        var json = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.app, "APP", help: "A built .app bundle, or an .ipa (read in place)."), .group(\.target),
                .flag(\.json, "--json", help: "Print JSON.")
            ]
        }
    }

    static var show: CommandSpec {
        CommandSpec(
            name: "show", abstract: "Print the marketing version and build number.",
            discussion: """
                For a project, per target and build configuration, with $(MARKETING_VERSION) and \
                $(CURRENT_PROJECT_VERSION) references resolved; for an app or an ipa, its Info.plist and its \
                extensions'.
                """,
            options: ShowOptions.self
        ) { options, parsed in
            let report: VersionReport
            switch try options.target.target(app: options.app, parsed) {
            case .project(let location): report = try VersionReport(project: location, limits: LimitSettings.current.plist)
            case .plist(let path): report = try VersionReport(plists: [path], limits: LimitSettings.current.plist)
            case .app(let app): report = try VersionReport(app: app, limits: LimitSettings.current)
            }
            if options.json {
                Console.out(try PropertyList.encode(report.value, format: .json))
            } else {
                Console.lines(report.lines)
            }
            return 0
        }
    }

    struct BumpOptions: CommandOptions {
        var field = VersionField.build
        var part: String?
        var app: String?
        var target = TargetOptions()
        var output: String?
        var to: String?
        var fromCI = false
        var allowDecrease = false
        var dryRun = false
        var allowBrokenSignature = false
        var signing = SigningOptions()
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.field, "FIELD", noun: "field", help: "What to change."),
                .argument(\.part, "PART", help: "For marketing: major, minor or patch."),
                .argument(\.app, "APP", help: "A built .app bundle, or an .ipa (or .zip holding one .app)."), .group(\.target),
                .option(
                    \.output, "-o", "--output", name: "OUT.ipa", kind: .path,
                    help: "Where to write the changed app when APP is an .ipa or .zip (its own path replaces it)."),
                .option(\.to, "--to", name: "VERSION", help: "The new value."),
                .flag(\.fromCI, "--from-ci", help: "Take the build number from the CI server's counter."),
                .flag(\.allowDecrease, "--allow-decrease", help: "Allow a value lower than the current one."),
                .flag(\.dryRun, "--dry-run", help: "Print what would change without writing."),
                EnvCommands.allowBrokenSignatureOption(\.allowBrokenSignature), .group(\.signing)
            ]
        }
    }

    static var bump: CommandSpec {
        CommandSpec(
            name: "bump", abstract: "Set or raise the build number or marketing version everywhere it lives.",
            discussion: """
                'bump build' sets CFBundleVersion in every Info.plist of the app and its extensions, and \
                CURRENT_PROJECT_VERSION where plists refer to it; without --to or --from-ci it raises the last \
                component. 'bump marketing major|minor|patch' (or --to X.Y.Z) does the same for \
                CFBundleShortVersionString and MARKETING_VERSION. --from-ci takes BUILD_NUMBER (TeamCity, Jenkins), \
                GITHUB_RUN_NUMBER or CI_PIPELINE_IID. Versions are one to three period-separated non-negative \
                integers; going backwards needs --allow-decrease. project.pbxproj keeps every other byte. A signed app's \
                Info.plists are sealed by its signature: bumping one is refused unless --allow-broken-signature (or \
                re-signed with a signing identity). An .ipa is bumped into a new ipa, --output OUT.ipa.
                """,
            options: BumpOptions.self
        ) { options, parsed in
            let field = options.field
            // PART and APP are read in order: a marketing part first, then the app.
            var rest = [options.part, options.app].compactMap { $0 }
            var request: VersionBumper.NewValue = .increment
            if let to = options.to { request = .exactly(to) }
            if options.fromCI {
                guard field == .build, options.to == nil else {
                    throw parsed.usageError("--from-ci sets build numbers and cannot be combined with --to")
                }
                request = .fromCI(ProcessInfo.processInfo.environment)
            }
            if field == .marketing, let first = rest.first, let part = BundleVersion.Part(rawValue: first) {
                guard options.to == nil else {
                    throw parsed.usageError("give either \(first) or --to, not both")
                }
                request = .bump(part)
                rest.removeFirst()
            } else if field == .marketing, options.to == nil {
                throw parsed.usageError("bump marketing needs major, minor, patch or --to X.Y.Z")
            }
            guard rest.count <= 1 else {
                throw parsed.usageError("unexpected argument '\(rest.last!)'")
            }
            let bumpTarget = try options.target.target(app: rest.first, parsed)
            // Only an archive is written elsewhere; an --output for anything else was ignored.
            if options.output != nil {
                guard case .app(let app) = bumpTarget, ArchivedAppChange.isArchive(app) else {
                    throw parsed.usageError("--output goes with an .ipa; an .app bundle or a project is changed where it is")
                }
            }
            var signsApp = false
            if case .app = bumpTarget { signsApp = true }
            var bumper = VersionBumper(
                target: bumpTarget, field: field, allowDecrease: options.allowDecrease, dryRun: options.dryRun,
                allowBrokenSignature: options.allowBrokenSignature,
                signing: try options.signing.request(signsApp: signsApp, parsed))
            bumper.output = options.output
            bumper.limits = try LimitSettings.current
            var warnings: [Diagnostic] = []
            var signed: BundleSigningReport?
            let changes = try bumper.bump(request, warnings: &warnings, signed: &signed)
            for change in changes { Console.line(change.line) }
            for warning in warnings { Console.warning(warning.report) }
            if let signed, case .app(let app) = bumpTarget {
                Console.lines(SigningLines.summary(signed, target: ArchivedAppChange.isArchive(app) ? bumper.output ?? app : app))
            }
            if let value = changes.first?.newValue {
                let label = field.label.prefix(1).uppercased() + field.label.dropFirst()
                Console.line(options.dryRun ? "\(label) would be \(value) (dry run: nothing written)." : "\(label) is now \(value).")
            }
            return 0
        }
    }
}
