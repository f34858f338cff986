import AdhocBuildKit
import CommandLineOptions
import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild release`: the one-command pipeline for a CI step.
enum ReleaseCommand {
    static var command: CommandSpec {
        CommandSpec(
            name: "release", abstract: "Environment, build number, package, verify, page and index: one CI step.",
            discussion: """
                Runs, with a line per step: apply the environment (to a copy of an .app), set the build number when \
                asked, package, verify, write the manifest, install page, icons, version.json and build.json into \
                DIST/<env>/<version>-<build>/, point DIST/<env>/latest at it and rewrite DIST/index.html. It ends with \
                the page URL and the itms-services link. Before publishing it checks the ipa's code signature (as \
                codesign verify does) and reports it to CI: unsigned and ad-hoc builds are warnings; a signed build whose \
                signature the release would break (the environment, the build number or --profile change sealed files) or \
                that is broken fails with exit 1 and publishes nothing, unless --allow-broken-signature, which publishes \
                it with a notice on the page and in the index that it will not install until it is re-signed. Defaults come from adhocbuild.plist in the current folder \
                (Environments, App, BaseURL, Icon, Notes, Out, Profile, Title) and from the environment's Distribution (BaseURL, \
                Notes, Icon, Profile): a flag wins over the environment, which wins over adhocbuild.plist, which wins over \
                the detected CI server's artifact URL (--explain shows where each value came from). The base URL may be a \
                template with {env}, {version}, {build} and {VARIABLE}; without placeholders it is where DIST is served. \
                On TeamCity, Jenkins, GitHub Actions and GitLab (detected, or --ci) it reports as each expects. The --sign-… \
                options (or the Sign… keys of adhocbuild.plist, or the ADHOCBUILD_SIGN_… variables a CI secret sets) say how \
                to re-sign the app; they are checked before anything is copied, and --explain shows where the password comes \
                from, never the password. With --devices STORE (a list kept by adhocbuild devices) each listed device that \
                a bundle's profile lacks is a warning naming the device and the bundle, or an error with --require-devices, \
                and build.json and the index say how many listed devices the build reaches.
                """,
            options: Options.self, run: run)
    }

    struct Options: CommandOptions {
        var environment = ""
        var app: String?
        var baseURL: String?
        var out: String?
        var notes: String?
        var icon: String?
        var buildNumber: String?
        var fromCI = false
        var allowDecrease = false
        var replace = false
        var allowBrokenSignature = false
        var allowExpired = false
        var profile: String?
        var environmentsFolder: String?
        var projectFile: String?
        var ci: CIServer?
        var teamCityServer: String?
        var teamCityBuildTypeID: String?
        var teamCityBuildID: String?
        var reportFile: String?
        var overrides = EnvCommands.Overrides()
        var allowHTTP = false
        var publish: String?
        var devices: String?
        var requireDevices = false
        var enrollURL: String?
        var store = StoreOptions()
        var signing = SigningOptions()
        var explain = false
        var quiet = false
        var json = false

        static var declarations: [Declaration<Self>] {
            [
                .option(\.environment, "--env", name: "NAME", help: "The environment to release.", required: true),
                .option(
                    \.app, "--app", name: "PATH", kind: .path, help: "The .app, .xcarchive or .ipa.",
                    defaultDescription: "App in adhocbuild.plist"),
                .option(
                    \.baseURL, "--base-url", name: "URL", help: "Where DIST is served, or a template.",
                    defaultDescription: "Distribution:BaseURL, else BaseURL, else the CI's artifact URL"),
                .option(\.out, "--out", name: "DIST", kind: .path, help: "The folder of releases.", defaultDescription: "Out, else dist"),
                .option(
                    \.notes, "--notes", name: "FILE", kind: .path, help: "Release notes (plain text).",
                    defaultDescription: "Distribution:Notes, else Notes, else none"),
                .option(
                    \.icon, "--icon", name: "PNG", kind: .path, help: "The app's icon for the page and manifest.",
                    defaultDescription: "Distribution:Icon, else Icon, else the bundle's"),
                .option(\.buildNumber, "--build-number", name: "N", help: "Set the build number first."),
                .flag(\.fromCI, "--from-ci", help: "Set the build number from the CI's counter first."),
                .flag(\.allowDecrease, "--allow-decrease", help: "Allow a build number lower than the app's."),
                .flag(\.replace, "--replace", help: "Replace a release of the same version and build already in DIST."),
                EnvCommands.allowBrokenSignatureOption(\.allowBrokenSignature),
                .flag(
                    \.allowExpired, "--allow-expired",
                    help:
                        "Publish a build whose provisioning profile or signing certificate has expired (its page says it cannot be installed)."
                ),
                .option(
                    \.profile, "--profile", name: "FILE", kind: .path, help: "Embed this provisioning profile.",
                    defaultDescription: "Distribution:Profile, else Profile, else the app's own"),
                .option(
                    \.environmentsFolder, "--environments", name: "PATH", kind: .path, help: "The environments folder.",
                    defaultDescription: "Environments, else environments"),
                .option(
                    \.projectFile, "--project-file", name: "FILE", kind: .path, help: "The project file.",
                    defaultDescription: ProjectFile.defaultName),
                .choice(
                    \.ci, "--ci", name: "SERVER", noun: "CI server", help: "The CI server to report to.", defaultDescription: "detected"),
                .option(
                    \.teamCityServer, "--teamcity-server", name: "URL", help: "With --ci teamcity: the server's address, for artifact URLs."
                ),
                .option(\.teamCityBuildTypeID, "--build-type-id", name: "ID", help: "With --ci teamcity: the build configuration's ID."),
                .option(\.teamCityBuildID, "--build-id", name: "ID", help: "With --ci teamcity: this build's internal ID."),
                .option(
                    \.reportFile, "--report-file", name: "FILE", kind: .path, help: "Jenkins properties or GitLab dotenv file.",
                    defaultDescription: "adhocbuild.properties / adhocbuild.env"),
                .group(\.overrides), DistributionCommands.allowHTTPOption(\.allowHTTP),
                .option(
                    \.publish, "--publish", name: "s3://BUCKET/PREFIX/", help: "Then upload it to this store, with private links.",
                    defaultDescription: "Distribution:Publish, else Publish, else DIST only"),
                .option(
                    \.devices, "--devices", name: "STORE", kind: .path,
                    help: "Warn of each listed device (adhocbuild devices) a bundle's profile lacks.",
                    defaultDescription: "Distribution:Devices, else Devices, else none"),
                .flag(\.requireDevices, "--require-devices", help: "Fail instead when a listed device is missing from a profile."),
                .option(
                    \.enrollURL, "--enroll-url", name: "URL", help: "Link the install page to this enrollment page.",
                    defaultDescription: "Distribution:EnrollURL, else EnrollURL, else none"),
                .group(\.store), .group(\.signing),
                .flag(\.explain, "--explain", help: "Print each setting's value and where it came from before releasing."),
                .flag(\.quiet, "-q", "--quiet", help: "Print only the page URL and the install link."),
                .flag(\.json, "--json", help: "Print a JSON summary of the release instead of progress lines.")
            ]
        }

        /// What the command line asks for; the project file and CI presets fill in the rest in `ReleaseRequest`.
        func request(_ command: ParsedCommand) throws -> ReleaseRequest {
            var request = ReleaseRequest(environment: environment)
            request.limits = try LimitSettings.current
            request.app = app
            request.baseURL = baseURL
            request.out = out
            request.notes = notes
            request.icon = icon
            request.profile = profile
            request.environmentsFolder = environmentsFolder
            request.projectFile = projectFile
            request.ci = ci
            request.teamCityServer = teamCityServer
            request.teamCityBuildTypeID = teamCityBuildTypeID
            request.teamCityBuildID = teamCityBuildID
            request.reportFile = reportFile
            request.overrides = overrides.keyPathOverrides
            request.settings = overrides.variables
            request.allowedVariables = overrides.allowedVariables
            request.allowHTTP = allowHTTP
            request.publish = publish
            request.devices = devices
            request.requireDevices = requireDevices
            request.enrollURL = enrollURL
            request.store = store.settings(allowHTTP: allowHTTP)
            request.allowDecrease = allowDecrease
            request.replace = replace
            request.allowBrokenSignature = allowBrokenSignature
            request.allowExpired = allowExpired
            request.signing = signing.flags
            if let buildNumber {
                guard !fromCI else { throw command.usageError("give --build-number or --from-ci, not both") }
                request.buildNumber = .exactly(buildNumber)
            } else if fromCI {
                request.buildNumber = .fromCI
            }
            return request
        }
    }

    static func run(_ options: Options, _ parsed: ParsedCommand) throws -> Int32 {
        let quiet = options.quiet, json = options.json, explain = options.explain
        Interruption.setNothingDone("nothing was published")
        var explained: [ReleaseSetting] = []
        let result: ReleasePipeline.Result
        do {
            result = try options.request(parsed).run(
                processEnvironment: ProcessInfo.processInfo.environment,
                printLine: { Console.ciMessage($0) },
                onPlan: { plan in
                    guard explain else { return }
                    if json {
                        explained = plan.settings
                    } else {
                        Console.lines(ReleaseSetting.explanation(plan.settings) + [""])
                    }
                },
                onStep: { step, finished in
                    if !finished && !quiet && !json { Console.line("==> \(step)", bold: true) }
                })
        } catch let incomplete as ReleaseRequest.Incomplete {
            throw parsed.usageError(incomplete.description)
        }
        for warning in result.warnings where !json { Console.warning(warning.report) }
        if json {
            var dict = PlistDictionary()
            for (name, value) in CIReporter.values(result) { dict[name.lowercased()] = .string(value) }
            dict["warnings"] = .array(result.warnings.map { .string($0.report) })
            if explain {
                var settings = PlistDictionary()
                for setting in explained {
                    var entry = PlistDictionary()
                    entry["value"] = setting.value.map(PlistValue.string)
                    entry["from"] = .string(setting.originText)
                    settings[setting.name] = .dictionary(entry)
                }
                dict["settings"] = .dictionary(settings)
            }
            Console.out(try PropertyList.encode(.dictionary(dict), format: .json))
        } else {
            if !quiet {
                Console.lines(["", "Released \(result.environment) \(result.version) (\(result.build)) into \(result.releaseFolder)"])
            }
            Console.lines(["Install page: \(result.pageURL)", "Install link: \(result.installURL)"])
            if !quiet, !result.signer.isEmpty {
                Console.line("Signed by \(result.signer)\(result.team.isEmpty ? "" : ", team \(result.team)"); cdhash \(result.cdhash)")
            }
        }
        return 0
    }
}
