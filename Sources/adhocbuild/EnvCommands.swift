import AdhocBuildKit
import CommandLineOptions
import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild env …`: per-environment configuration.
enum EnvCommands {
    /// `--environments`, defaulting to the property's initial value.
    static func environmentsOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, String>) -> Declaration<Options> {
        .option(property, "--environments", name: "PATH", kind: .path, help: "Folder of environment plists, or one Environments.plist.")
    }

    /// `--set`, `--setting` and `--allow-env`: what `env` and `release` change in an environment.
    struct Overrides: CommandOptions {
        var changes: [KeyValue] = []
        var settings: [KeyValue] = []
        var allowedVariables: [String] = []
        static var declarations: [Declaration<Self>] {
            [
                .keyValues(\.changes, "--set", name: "KEYPATH=VALUE", help: "Override a value after inheritance."),
                .keyValues(\.settings, "--setting", name: "NAME=VALUE", help: "Define a $(NAME) variable."),
                .repeated(
                    \.allowedVariables, "--allow-env", name: "NAME",
                    help: "Let $(NAME) read this variable from the process environment (never a secret).",
                    defaultDescription: "only the CI's build, commit and branch variables")
            ]
        }

        /// The `--set KEYPATH=VALUE` overrides, in order.
        var keyPathOverrides: [(keyPath: PlistKeyPath, value: String)] {
            changes.map { (keyPath: PlistKeyPath(parsing: $0.name), value: $0.value) }
        }

        /// The `--setting NAME=VALUE` variables; the last one given for a name wins.
        var variables: [String: String] {
            Dictionary(settings.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// The environments folder and the overrides: what resolving an environment needs.
    struct ResolverOptions: CommandOptions {
        var environments = "environments"
        var overrides = Overrides()
        static var declarations: [Declaration<Self>] {
            [
                environmentsOption(\.environments), .group(\.overrides)
            ]
        }

        /// The resolver for these options. `passwordVariables` are the variables this command reads a signing
        /// password from, which are never expanded.
        func resolver(passwordVariables: [String] = []) throws -> EnvironmentResolver {
            EnvironmentResolver(
                store: try EnvironmentStore(at: environments, limits: LimitSettings.current.plist), overrides: overrides.keyPathOverrides,
                settings: overrides.variables, processEnvironment: ProcessInfo.processInfo.environment,
                variablePolicy: ProcessVariablePolicy(allowed: overrides.allowedVariables, secrets: passwordVariables))
        }
    }

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

    struct ListOptions: CommandOptions {
        var environments = "environments"
        static var declarations: [Declaration<Self>] { [environmentsOption(\.environments)] }
    }

    static var list: CommandSpec {
        CommandSpec(
            name: "list", abstract: "List the environments, what each inherits, and where each file is.", options: ListOptions.self
        ) { options, _ in
            let store = try EnvironmentStore(at: options.environments, limits: LimitSettings.current.plist)
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
        }
    }

    /// How `env show` prints: a plist format, or text.
    enum ShowFormat: String, CaseIterable, Sendable {
        case xml, binary, json, text
    }

    struct ShowOptions: CommandOptions {
        var name = ""
        var resolving = ResolverOptions()
        var format = ShowFormat.xml
        var explain = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.name, "NAME", help: "The environment."), .group(\.resolving),
                .choice(\.format, "--format", name: "FORMAT", noun: "format", help: "How to print."),
                .flag(\.explain, "--explain", help: "Print every leaf key path with its value and the file and key path that set it.")
            ]
        }
    }

    static var show: CommandSpec {
        CommandSpec(name: "show", abstract: "Print the fully resolved environment.", options: ShowOptions.self) { options, _ in
            let environment = try options.resolving.resolver().resolve(options.name)
            if options.explain {
                for leaf in environment.leaves {
                    Console.line(
                        "\(leaf.keyPath) = \(EnvironmentDiff.render(leaf.value))  "
                            + "(\(leaf.file)\(leaf.file == EnvironmentResolver.overrideSource ? "" : ": \(leaf.sourceKeyPath)"))")
                }
                return 0
            }
            let value = PlistValue.dictionary(environment.value)
            if let format = PlistFormat(rawValue: options.format.rawValue) {
                Console.out(try PropertyList.encode(value, format: format))
            } else {
                Console.out(PlistTextPrinter().render(value))
            }
            return 0
        }
    }

    struct DiffOptions: CommandOptions {
        var from = ""
        var to = ""
        var resolving = ResolverOptions()
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.from, "A", help: "The environment to compare from."),
                .argument(\.to, "B", help: "The environment to compare to."), .group(\.resolving)
            ]
        }
    }

    static var diff: CommandSpec {
        CommandSpec(
            name: "diff", abstract: "Show the key paths added, removed and changed from environment A to B.", options: DiffOptions.self
        ) { options, _ in
            let resolver = try options.resolving.resolver()
            let diff = EnvironmentDiff(from: try resolver.resolve(options.from), to: try resolver.resolve(options.to))
            Console.lines(diff.lines)
            return 0
        }
    }

    struct CheckOptions: CommandOptions {
        var names: [String] = []
        var resolving = ResolverOptions()
        var junit: String?
        static var declarations: [Declaration<Self>] {
            [
                .arguments(\.names, "NAME", help: "Environments to check (default: all).", isOptional: true), .group(\.resolving),
                .option(
                    \.junit, "--junit", name: "FILE", kind: .path,
                    help: "Also write the result as JUnit XML (for Jenkins, TeamCity, GitLab).")
            ]
        }
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
            options: CheckOptions.self
        ) { options, _ in
            let report = EnvironmentChecker(resolver: try options.resolving.resolver()).check(options.names)
            for problem in report.problems {
                if problem.severity == .error { Console.error(problem.description) } else { Console.warning(problem.description) }
            }
            if let junit = options.junit {
                try FileIO.writeAtomically(
                    Data(JUnitReport.xml(suite: "adhocbuild env check", results: report.results).utf8), to: junit)
            }
            Console.line(report.summary)
            return report.errors.isEmpty ? 0 : 1
        }
    }

    /// `--allow-broken-signature` (env apply, version bump, release).
    static func allowBrokenSignatureOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, Bool>) -> Declaration<Options> {
        .flag(
            property, "--allow-broken-signature",
            help: "Change a signed app even though that breaks its signature (it must be re-signed).")
    }

    struct ApplyOptions: CommandOptions {
        var name = ""
        var resolving = ResolverOptions()
        var app: String?
        var project: String?
        var infoPlist: String?
        var output: String?
        var format: PlistFormat?
        var dryRun = false
        var allowBrokenSignature = false
        var signing = SigningOptions()
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.name, "NAME", help: "The environment."), .group(\.resolving),
                .option(\.app, "--app", name: "PATH.app", kind: .path, help: "A built app bundle, or an .ipa (or .zip holding one .app)."),
                .option(\.project, "--project", name: "DIR", kind: .path, help: "A source tree."),
                .option(
                    \.infoPlist, "--info-plist", name: "PATH", kind: .path, help: "The Info.plist to patch (with --project).",
                    defaultDescription: "the app's Info.plist under DIR"),
                .option(
                    \.output, "-o", "--output", name: "PATH", kind: .path,
                    help: "Where to write environment.plist (with --project), or the new ipa (with --app IN.ipa).",
                    defaultDescription: "beside the Info.plist"),
                .choice(
                    \.format, "--format", name: "FORMAT", noun: "format", choices: [.xml, .binary], help: "environment.plist's format.",
                    defaultDescription: "binary with --app, xml with --project"),
                .flag(\.dryRun, "--dry-run", help: "Print what would change without writing."),
                allowBrokenSignatureOption(\.allowBrokenSignature), .group(\.signing)
            ]
        }
    }

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
            options: ApplyOptions.self
        ) { options, parsed in
            let app = options.app
            guard (app == nil) != (options.project == nil) else {
                throw parsed.usageError("give exactly one of --app PATH.app and --project DIR")
            }
            // An app folder is changed where it is; an --output for it was ignored (`-o A.app/B.app` wrote into A.app).
            if let app, !ArchivedAppChange.isArchive(app), options.output != nil {
                throw parsed.usageError("--output goes with --project or --app IN.ipa; an .app bundle is changed where it is")
            }
            let passwordVariables = options.signing.passwordVariables(signsApp: app != nil)
            let (environment, environmentWarnings) = try options.resolving.resolver(passwordVariables: passwordVariables)
                .resolveForApplying(options.name)
            for warning in environmentWarnings { Console.warning(warning.description) }
            let signing = try options.signing.request(signsApp: app != nil, parsed)
            var applier = EnvironmentApplier(
                environment: environment, dryRun: options.dryRun, allowBrokenSignature: options.allowBrokenSignature,
                signing: signing)
            applier.limits = try LimitSettings.current
            let report =
                try app.map { app in
                    ArchivedAppChange.isArchive(app)
                        ? try applier.apply(toArchive: app, output: options.output, format: options.format ?? .binary)
                        : try applier.apply(toApp: app, format: options.format ?? .binary)
                }
                ?? applier.apply(
                    toProject: options.project!, infoPlist: options.infoPlist, output: options.output,
                    format: options.format ?? .xml)
            Console.lines(report.changes.flatMap { $0.lines(dryRun: options.dryRun) })
            for warning in report.warnings { Console.warning(warning.report) }
            let written = app.map { ArchivedAppChange.isArchive($0) ? options.output ?? $0 : $0 } ?? ""
            if let signed = report.signed { Console.lines(SigningLines.summary(signed, target: written)) }
            Console.line("Applied \(environment.name)\(options.dryRun ? " (dry run: nothing written)" : "").")
            return 0
        }
    }
}
