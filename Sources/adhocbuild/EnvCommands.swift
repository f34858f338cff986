import AdhocBuildKit
import CommandLineOptions
import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild env …`: per-environment configuration.
enum EnvCommands {
    static let environmentsOption = OptionSpec.value(
        "--environments", name: "PATH", kind: .path, help: "Folder of environment plists, or one Environments.plist.",
        default: "environments")
    static let setOption = OptionSpec.value(
        "--set", name: "KEYPATH=VALUE", kind: .keyValue, help: "Override a value after inheritance.", repeatable: true)
    static let settingOption = OptionSpec.value(
        "--setting", name: "NAME=VALUE", kind: .keyValue, help: "Define a $(NAME) variable.", repeatable: true)
    static let allowEnvOption = OptionSpec.value(
        "--allow-env", name: "NAME", help: "Let $(NAME) read this variable from the process environment (never a secret).",
        defaultDescription: "only the CI's build, commit and branch variables", repeatable: true)

    static var command: CommandSpec {
        CommandSpec(
            name: "env",
            abstract: "Layered per-environment configuration: list, show, diff, check and apply environments.",
            discussion: """
                An environments folder holds an optional Base.plist of shared defaults and one plist per environment. \
                Each has Settings (written as environment.plist), Info (Info.plist keys it changes), Distribution \
                (what publishing needs), Variables (for $(NAME) references) and may name a parent in Inherits. \
                Resolution order: Base, the inherited chain, the environment, then --set overrides.
                """,
            subcommands: [list, show, diff, check, apply])
    }

    /// The resolver for the environments, `--set`, `--setting` and `--allow-env` given. `passwordVariables`
    /// are the variables this command reads a signing password from, which are never expanded.
    static func resolver(_ parsed: ParsedCommand, passwordVariables: [String] = []) throws -> EnvironmentResolver {
        let store = try EnvironmentStore(at: parsed.required("environments"))
        return EnvironmentResolver(
            store: store, overrides: overrides(parsed), settings: settings(parsed),
            processEnvironment: ProcessInfo.processInfo.environment,
            variablePolicy: ProcessVariablePolicy(allowed: parsed.allValues("allow-env"), secrets: passwordVariables))
    }

    /// The `--set KEYPATH=VALUE` overrides, in order.
    static func overrides(_ parsed: ParsedCommand) -> [(keyPath: PlistKeyPath, value: String)] {
        parsed.pairs("set").map { (keyPath: PlistKeyPath(parsing: $0.name), value: $0.value) }
    }

    /// The `--setting NAME=VALUE` variables; the last one given for a name wins.
    static func settings(_ parsed: ParsedCommand) -> [String: String] {
        Dictionary(parsed.pairs("setting").map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    static var list: CommandSpec {
        CommandSpec(
            name: "list", abstract: "List the environments, what each inherits, and where each file is.",
            options: [environmentsOption],
            run: { parsed in
                let store = try EnvironmentStore(at: parsed.required("environments"))
                var rows: [(String, String, String)] = []
                if let base = store.base { rows.append(("(Base)", "", base.file)) }
                for environment in store.environments {
                    rows.append((environment.name, environment.inherits.map { "inherits \($0)" } ?? "", environment.file))
                }
                let nameWidth = rows.map(\.0.count).max() ?? 0
                let inheritsWidth = rows.map(\.1.count).max() ?? 0
                for (name, inherits, file) in rows {
                    Console.line(
                        name.padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0)
                            + (inheritsWidth > 0 ? inherits.padding(toLength: inheritsWidth + 2, withPad: " ", startingAt: 0) : "")
                            + file)
                }
                return 0
            })
    }

    static var show: CommandSpec {
        CommandSpec(
            name: "show", abstract: "Print the fully resolved environment.",
            arguments: [ArgumentSpec(name: "NAME", help: "The environment.")],
            options: [
                environmentsOption, setOption, settingOption, allowEnvOption,
                .value(
                    "--format", name: "FORMAT", kind: .choice(["xml", "binary", "json", "text"], noun: "format"),
                    help: "How to print.", default: "xml"),
                .flag("--explain", help: "Print every leaf key path with its value and the file and key path that set it.")
            ],
            run: { parsed in
                let environment = try resolver(parsed).resolve(parsed.positionals[0])
                if parsed.flag("explain") {
                    for leaf in environment.leaves {
                        Console.line(
                            "\(leaf.keyPath) = \(EnvironmentDiff.render(leaf.value))  "
                                + "(\(leaf.file)\(leaf.file == EnvironmentResolver.overrideSource ? "" : ": \(leaf.sourceKeyPath)"))")
                    }
                    return 0
                }
                let value = PlistValue.dictionary(environment.value)
                if let format = parsed.choice("format", as: PlistFormat.self) {
                    Console.out(try PropertyList.encode(value, format: format))
                } else {
                    Console.out(PlistTextPrinter().render(value))
                }
                return 0
            })
    }

    static var diff: CommandSpec {
        CommandSpec(
            name: "diff", abstract: "Show the key paths added, removed and changed from environment A to B.",
            arguments: [
                ArgumentSpec(name: "A", help: "The environment to compare from."),
                ArgumentSpec(name: "B", help: "The environment to compare to.")
            ],
            options: [environmentsOption, setOption, settingOption, allowEnvOption],
            run: { parsed in
                let resolver = try resolver(parsed)
                let diff = EnvironmentDiff(
                    from: try resolver.resolve(parsed.positionals[0]),
                    to: try resolver.resolve(parsed.positionals[1]))
                Console.lines(diff.lines)
                return 0
            })
    }

    static var check: CommandSpec {
        CommandSpec(
            name: "check", abstract: "Check that every environment is complete and consistent.",
            discussion: """
                Every environment must resolve (no inheritance cycle, no missing parent, no undefined variable), \
                every Settings key path must be in all environments with one type, bundle identifiers must be \
                valid; URLs that are not https are warned about. All problems are printed, one per line; exit 1 \
                when there are errors.
                """,
            arguments: [ArgumentSpec(name: "NAME", help: "Environments to check (default: all).", isOptional: true, isVariadic: true)],
            options: [
                environmentsOption, setOption, settingOption, allowEnvOption,
                .value("--junit", name: "FILE", kind: .path, help: "Also write the result as JUnit XML (for Jenkins, TeamCity, GitLab).")
            ],
            run: { parsed in
                let report = EnvironmentChecker(resolver: try resolver(parsed)).check(parsed.positionals)
                for problem in report.problems {
                    if problem.severity == .error { Console.error(problem.description) } else { Console.warning(problem.description) }
                }
                if let junit = parsed.value("junit") {
                    try FileIO.writeAtomically(
                        Data(JUnitReport.xml(suite: "adhocbuild env check", results: report.results).utf8), to: junit)
                }
                Console.line(report.summary)
                return report.errors.isEmpty ? 0 : 1
            })
    }

    /// `--allow-broken-signature` (env apply, version bump, release).
    static let allowBrokenSignatureOption = OptionSpec.flag(
        "--allow-broken-signature", help: "Change a signed app even though that breaks its signature (it must be re-signed).")

    static var apply: CommandSpec {
        CommandSpec(
            name: "apply", abstract: "Write environment.plist and patch the Info.plist, in a built app or a source tree.",
            discussion: """
                With --app, environment.plist (binary) goes to the bundle's top and its Info.plist is patched; both are \
                sealed by a signature, so applying to a signed bundle that it would change is refused before anything is \
                written (re-sign it afterwards, and pass --allow-broken-signature to apply anyway). With --project, the Info.plist found in the folder (or --info-plist) is \
                patched and environment.plist (XML) is written beside it, before the build; a value it takes from a build \
                setting ($(PRODUCT_BUNDLE_IDENTIFIER)) keeps the reference, and the setting is changed in project.pbxproj \
                (extensions named under the app's id move with it). Files keep their format, \
                are written atomically and are left alone when nothing changes. With --app IN.ipa (or a .zip \
                holding one .app), the changed app is written as a new ipa, --output OUT.ipa (the input's own path \
                replaces it): what did not change goes in as it was compressed, and with a signing identity every \
                bundle is signed again.
                """,
            arguments: [ArgumentSpec(name: "NAME", help: "The environment.")],
            options: [
                environmentsOption, setOption, settingOption, allowEnvOption,
                .value("--app", name: "PATH.app", kind: .path, help: "A built app bundle, or an .ipa (or .zip holding one .app)."),
                .value("--project", name: "DIR", kind: .path, help: "A source tree."),
                .value(
                    "--info-plist", name: "PATH", kind: .path, help: "The Info.plist to patch (with --project).",
                    defaultDescription: "the app's Info.plist under DIR"),
                .value(
                    "-o", "--output", name: "PATH", kind: .path,
                    help: "Where to write environment.plist (with --project), or the new ipa (with --app IN.ipa).",
                    defaultDescription: "beside the Info.plist"),
                .value(
                    "--format", name: "FORMAT", kind: .choice(["xml", "binary"], noun: "format"),
                    help: "environment.plist's format.", defaultDescription: "binary with --app, xml with --project"),
                .flag("--dry-run", help: "Print what would change without writing."),
                allowBrokenSignatureOption
            ] + SigningOptions.options,
            run: { parsed in
                let app = parsed.value("app"), project = parsed.value("project")
                guard (app == nil) != (project == nil) else {
                    throw parsed.usageError("give exactly one of --app PATH.app and --project DIR")
                }
                // An app folder is changed where it is; an --output for it was ignored (`-o A.app/B.app` wrote into A.app).
                if let app, !ArchivedAppChange.isArchive(app), parsed.value("output") != nil {
                    throw parsed.usageError("--output goes with --project or --app IN.ipa; an .app bundle is changed where it is")
                }
                let format = parsed.choice("format", as: PlistFormat.self)
                let passwordVariables = SigningOptions.passwordVariables(parsed, signsApp: app != nil)
                let (environment, environmentWarnings) = try resolver(parsed, passwordVariables: passwordVariables)
                    .resolveForApplying(parsed.positionals[0])
                for warning in environmentWarnings { Console.warning(warning.description) }
                let signing = try SigningOptions.request(parsed, signsApp: app != nil)
                let applier = EnvironmentApplier(
                    environment: environment, dryRun: parsed.flag("dry-run"), allowBrokenSignature: parsed.flag("allow-broken-signature"),
                    signing: signing)
                let report =
                    try app.map { app in
                        ArchivedAppChange.isArchive(app)
                            ? try applier.apply(toArchive: app, output: parsed.value("output"), format: format ?? .binary)
                            : try applier.apply(toApp: app, format: format ?? .binary)
                    }
                    ?? applier.apply(
                        toProject: project!, infoPlist: parsed.value("info-plist"), output: parsed.value("output"),
                        format: format ?? .xml)
                Console.lines(report.changes.flatMap { $0.lines(dryRun: parsed.flag("dry-run")) })
                for warning in report.warnings { Console.warning(warning) }
                let written = app.map { ArchivedAppChange.isArchive($0) ? parsed.value("output") ?? $0 : $0 } ?? ""
                if let signed = report.signed { Console.lines(SigningLines.summary(signed, target: written)) }
                Console.line("Applied \(environment.name)\(parsed.flag("dry-run") ? " (dry run: nothing written)" : "").")
                return 0
            })
    }
}
