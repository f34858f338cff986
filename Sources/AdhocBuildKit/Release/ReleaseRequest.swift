import Foundation
import PlistKit

/// What `adhocbuild release` was asked for on its command line. `plan` fills what is not given from
/// the project file (`adhocbuild.plist`), then from the CI server's artifact URL presets, then
/// from the built-in defaults; `run` releases with the plan and reports to the CI server.
public struct ReleaseRequest: Sendable {
    public var environment: String
    public var app: String?
    public var baseURL: String?
    public var out: String?
    public var notes: String?
    public var icon: String?
    public var profile: String?
    public var environmentsFolder: String?
    /// The project file (default: `adhocbuild.plist` in the current folder, if there is one).
    public var projectFile: String?
    /// The CI server to report to (default: detected from the environment).
    public var ci: CIServer?
    public var teamCityServer: String?
    public var teamCityBuildTypeID: String?
    public var teamCityBuildID: String?
    public var reportFile: String?
    public var buildNumber: ReleasePipeline.BuildNumber = .unchanged
    public var overrides: [(keyPath: PlistKeyPath, value: String)] = []
    public var settings: [String: String] = [:]
    public var allowHTTP = false
    public var allowDecrease = false
    public var replace = false

    public init(environment: String) { self.environment = environment }

    /// A setting that is neither given, nor in the project file, nor preset: a mistake in how the
    /// release was asked for (the command line reports it as a usage error).
    public struct Incomplete: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The pipeline's options and where to report, everything filled in.
    public struct Plan: Sendable {
        public var options: ReleasePipeline.Options
        public var server: CIServer
        public var reportFile: String?
    }

    /// The command line over the project file over the CI presets over the defaults.
    public func plan(processEnvironment: [String: String]) throws -> Plan {
        let project = try ProjectFile.load(projectFile)
        func setting(_ given: String?, _ key: String) -> String? { given ?? project?.values[key] }
        guard let app = setting(app, "App") else { throw Incomplete(description: "missing --app PATH (or App in adhocbuild.plist)") }
        let out = setting(out, "Out") ?? "dist"
        guard let baseURL = try setting(baseURL, "BaseURL") ?? presetBaseURL(out: out, processEnvironment: processEnvironment) else {
            throw Incomplete(description: "missing --base-url URL (or BaseURL in adhocbuild.plist, or --ci teamcity|jenkins)")
        }
        var options = ReleasePipeline.Options(environment: environment, input: app, baseURL: baseURL, out: out)
        options.environmentsFolder = setting(environmentsFolder, "Environments") ?? "environments"
        options.notes = setting(notes, "Notes")
        options.icon = setting(icon, "Icon")
        options.profile = setting(profile, "Profile")
        options.indexTitle = project?.values["Title"] ?? "Builds"
        options.allowHTTP = allowHTTP
        options.allowDecrease = allowDecrease
        options.replace = replace
        options.overrides = overrides
        options.settings = settings
        options.buildNumber = buildNumber
        options.processEnvironment = processEnvironment
        return Plan(options: options, server: ci ?? CIServer.detect(in: processEnvironment), reportFile: reportFile)
    }

    /// The artifact URL of the CI server chosen with `--ci`, for TeamCity and Jenkins.
    func presetBaseURL(out: String, processEnvironment: [String: String]) throws -> String? {
        switch ci {
        case .teamcity?:
            guard let teamCityServer, let teamCityBuildTypeID, let teamCityBuildID else {
                throw Incomplete(
                    description: "--ci teamcity needs --teamcity-server, --build-type-id and --build-id for artifact URLs "
                        + "(TeamCity does not put them in the environment)")
            }
            return CIArtifactURL.teamCity(server: teamCityServer, buildTypeID: teamCityBuildTypeID, buildID: teamCityBuildID, out: out)
        case .jenkins?:
            guard let buildURL = processEnvironment["BUILD_URL"] else {
                throw Incomplete(description: "--ci jenkins needs BUILD_URL in the environment")
            }
            return CIArtifactURL.jenkins(buildURL: buildURL, out: out)
        default:
            return nil
        }
    }

    /// Plans, runs the pipeline and reports to the CI server: each step as it starts and finishes
    /// (`onStep`), then the failure or the release. `printLine` prints the CI server's service messages.
    public func run(
        processEnvironment: [String: String], printLine: @escaping @Sendable (String) -> Void,
        onStep: @escaping @Sendable (_ step: String, _ finished: Bool) -> Void
    ) throws -> ReleasePipeline.Result {
        let plan = try plan(processEnvironment: processEnvironment)
        let reporter = CIReporter(server: plan.server, environment: processEnvironment, reportFile: plan.reportFile, print: printLine)
        var pipeline = ReleasePipeline(options: plan.options)
        pipeline.onStep = { step, finished in
            if finished { reporter.stepFinished(step) } else { reporter.stepStarted(step) }
            onStep(step, finished)
        }
        let result: ReleasePipeline.Result
        do { result = try pipeline.run() } catch let failure as ReleasePipeline.Failure {
            reporter.failed(failure)
            throw failure
        }
        try reporter.succeeded(result, out: plan.options.out)
        return result
    }
}
