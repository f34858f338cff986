import AdhocBuildKit
import Foundation
import PlistKit

/// `adhocbuild release`: the one-command pipeline for a CI step.
enum ReleaseCommand {
    static var command: CommandSpec {
        CommandSpec(
            name: "release", abstract: "Environment, build number, package, verify, page and index: one CI step.",
            discussion: """
                Runs, with a line per step: apply the environment (to a copy of an .app), set the build number when \
                asked, package, verify, write the manifest, install page, icons, version.json and build.json into \
                DIST/<env>/<version>-<build>/, point DIST/<env>/latest at it and rewrite DIST/index.html. It ends with \
                the page URL and the itms-services link. Defaults come from adhocbuild.plist in the current folder \
                (Environments, App, BaseURL, Notes, Out, Profile, Title); flags override them. The base URL may be a \
                template with {env}, {version}, {build} and {VARIABLE}; without placeholders it is where DIST is served. \
                On TeamCity, Jenkins, GitHub Actions and GitLab (detected, or --ci) it reports as each expects.
                """,
            options: [
                .value("--env", name: "NAME", help: "The environment to release."),
                .value("--app", name: "PATH", help: "The .app, .xcarchive or .ipa (default: App in adhocbuild.plist)."),
                .value("--base-url", name: "URL", help: "Where DIST is served, or a template (default: BaseURL, or the CI preset)."),
                .value("--out", name: "DIST", help: "The folder of releases (default: Out, else dist)."),
                .value("--notes", name: "FILE", help: "Release notes (plain text)."),
                .value("--build-number", name: "N", help: "Set the build number first."),
                .flag("--from-ci", help: "Set the build number from the CI's counter first."),
                .value("--profile", name: "FILE", help: "Embed this provisioning profile."),
                .value("--environments", name: "PATH", help: "The environments folder (default: Environments, else environments)."),
                .value("--project-file", name: "FILE", help: "The project file (default: adhocbuild.plist)."),
                .value("--ci", name: "SERVER", help: "teamcity, jenkins, github, gitlab or none (default: detected)."),
                .value("--teamcity-server", name: "URL", help: "With --ci teamcity: the server's address, for artifact URLs."),
                .value("--build-type-id", name: "ID", help: "With --ci teamcity: the build configuration's ID."),
                .value("--build-id", name: "ID", help: "With --ci teamcity: this build's internal ID."),
                .value("--report-file", name: "FILE", help: "Jenkins properties or GitLab dotenv file (default: adhocbuild.properties / adhocbuild.env)."),
                EnvCommands.setOption, EnvCommands.settingOption,
                .flag("--allow-http", help: "Accept an http base URL (iOS will refuse it; for test setups)."),
                .flag("-q", "--quiet", help: "Print only the page URL and the install link."),
                .flag("--json", help: "Print a JSON summary of the release instead of progress lines."),
            ],
            run: run)
    }

    static func run(_ parsed: ParsedCommand) throws -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        let project = try ProjectFile.load(parsed.value("project-file"))
        func setting(_ flag: String, _ key: String) -> String? { parsed.value(flag) ?? project?.values[key] }
        guard let env = parsed.value("env") else { throw UsageError(message: "missing --env NAME", commandPath: parsed.path) }
        guard let app = setting("app", "App") else {
            throw UsageError(message: "missing --app PATH (or App in adhocbuild.plist)", commandPath: parsed.path)
        }
        let out = setting("out", "Out") ?? "dist"
        var server = CIServer.detect(in: environment)
        if let name = parsed.value("ci") {
            guard let chosen = CIServer(rawValue: name) else {
                throw UsageError(message: "unknown CI server '\(name)'; use teamcity, jenkins, github, gitlab or none", commandPath: parsed.path)
            }
            server = chosen
        }
        var baseURL = setting("base-url", "BaseURL")
        if baseURL == nil && parsed.value("ci") == "teamcity" {
            guard let host = parsed.value("teamcity-server"), let type = parsed.value("build-type-id"), let id = parsed.value("build-id") else {
                throw UsageError(message: "--ci teamcity needs --teamcity-server, --build-type-id and --build-id for artifact URLs "
                                 + "(TeamCity does not put them in the environment)", commandPath: parsed.path)
            }
            baseURL = (host.hasSuffix("/") ? host : host + "/") + "guestAuth/repository/download/\(type)/\(id):id/"
                + (out as NSString).lastPathComponent + "/"
        }
        if baseURL == nil && parsed.value("ci") == "jenkins" {
            guard let buildURL = environment["BUILD_URL"] else {
                throw UsageError(message: "--ci jenkins needs BUILD_URL in the environment", commandPath: parsed.path)
            }
            baseURL = (buildURL.hasSuffix("/") ? buildURL : buildURL + "/") + "artifact/" + out + "/"
        }
        guard let baseURL else {
            throw UsageError(message: "missing --base-url URL (or BaseURL in adhocbuild.plist, or --ci teamcity|jenkins)", commandPath: parsed.path)
        }
        var options = ReleasePipeline.Options(environment: env, input: app, baseURL: baseURL, out: out)
        options.environmentsFolder = setting("environments", "Environments") ?? "environments"
        options.notes = setting("notes", "Notes")
        options.profile = setting("profile", "Profile")
        options.indexTitle = project?.values["Title"] ?? "Builds"
        options.allowHTTP = parsed.flag("allow-http")
        options.overrides = try EnvironmentResolver.pairs(parsed.allValues("set"), option: "--set")
            .map { (keyPath: PlistKeyPath(parsing: $0.0), value: $0.1) }
        options.settings = Dictionary(try EnvironmentResolver.pairs(parsed.allValues("setting"), option: "--setting"),
                                      uniquingKeysWith: { _, last in last })
        if let number = parsed.value("build-number") {
            guard !parsed.flag("from-ci") else {
                throw UsageError(message: "give --build-number or --from-ci, not both", commandPath: parsed.path)
            }
            options.buildNumber = .exactly(number)
        } else if parsed.flag("from-ci") {
            options.buildNumber = .fromCI
        }
        let quiet = parsed.flag("quiet"), json = parsed.flag("json")
        let reporter = CIReporter(server: server, environment: environment, reportFile: parsed.value("report-file"),
                                  print: { Console.out($0 + "\n") })
        var pipeline = ReleasePipeline(options: options)
        pipeline.onStep = { step, finished in
            if finished { reporter.stepFinished(step) } else {
                reporter.stepStarted(step)
                if !quiet && !json { Console.out(Console.bold("==> \(step)") + "\n") }
            }
        }
        let result: ReleasePipeline.Result
        do { result = try pipeline.run() } catch let failure as ReleasePipeline.Failure {
            reporter.failed(failure)
            Console.error(failure.description)
            return 1
        }
        for warning in result.warnings where !json { Console.warning(warning) }
        try reporter.succeeded(result, out: out)
        if json {
            var dict = PlistDictionary()
            for (name, value) in CIReporter.values(result) { dict[name.lowercased()] = .string(value) }
            dict["warnings"] = .array(result.warnings.map { .string($0) })
            Console.out(try PropertyList.encode(.dictionary(dict), format: .json))
        } else {
            if !quiet { Console.out("\nReleased \(result.environment) \(result.version) (\(result.build)) into \(result.releaseFolder)\n") }
            Console.out("Install page: \(result.pageURL)\nInstall link: \(result.installURL)\n")
        }
        return 0
    }
}
