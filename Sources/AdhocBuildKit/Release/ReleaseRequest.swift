import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// What `adhocbuild release` was asked for on its command line. `plan` fills what is not given from
/// the environment's `Distribution`, then the project file (`adhocbuild.plist`), then the detected
/// CI server's artifact URL, then the built-in defaults, and says where each value came from; `run`
/// releases with the plan and reports to the CI server.
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
    /// `--allow-env`: variables of the process environment the environment and the base URL may read.
    public var allowedVariables: [String] = []
    public var allowHTTP = false
    /// The store to upload the release to (`--publish s3://BUCKET/PREFIX/`), and how to reach it.
    public var publish: String?
    public var store = StoreSettings()
    /// The testers' device list the build's profiles are checked against (`--devices`).
    public var devices: String?
    /// `--require-devices`: a listed device a profile lacks fails the release (see ``ReleasePipeline/Options``).
    public var requireDevices = false
    /// The enrollment page the install page links to (`--enroll-url`).
    public var enrollURL: String?
    public var allowDecrease = false
    public var replace = false
    /// `--allow-broken-signature`: publish a build whose signature is broken (see ``ReleasePipeline/Options``).
    public var allowBrokenSignature = false
    /// `--allow-expired`: publish a build whose provisioning profile has expired (see ``ReleasePipeline/Options``).
    public var allowExpired = false
    /// The `--sign-…` flags; the project file and the `ADHOCBUILD_SIGN_…` variables fill in the rest.
    public var signing = SigningRequest.Flags()
    /// The limits every plist and archive of the release is read with.
    public var limits: ReaderLimits = .standard

    public init(environment: String) { self.environment = environment }

    /// A setting that is neither given, nor in the environment, nor in the project file, nor preset:
    /// a mistake in how the release was asked for (the command line reports it as a usage error).
    public struct Incomplete: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The pipeline's options and where to report, everything filled in.
    public struct Plan: Sendable {
        public var options: ReleasePipeline.Options
        public var server: CIServer
        public var reportFile: String?
        /// Every setting with the value chosen and where it came from, in the order they were chosen
        /// (what `release --explain` prints).
        public var settings: [ReleaseSetting]
    }

    /// The `Distribution` keys an environment may set for `release`; paths among them are taken from
    /// the environment file's folder.
    public static let environmentKeys = ["BaseURL", "Notes", "Icon", "Profile", "Publish", "Devices", "EnrollURL"]

    /// The `Distribution` keys that are URLs, not paths.
    static let urlKeys: Set<String> = ["BaseURL", "Publish", "EnrollURL"]

    /// Fills every setting from, strongest first: the command line (a CI preset asked for with
    /// flags counts as a flag), the environment's `Distribution`, the project file, the preset of
    /// the CI server detected in `processEnvironment`, and the built-in default.
    public func plan(processEnvironment: [String: String]) throws -> Plan {
        let search = projectFile == nil ? ProjectFileSearch() : nil
        let project = try ProjectFile.load(projectFile ?? search?.found, limits: limits.plist)
        var chooser = SettingChooser()
        chooser.choose(
            "ProjectFile",
            [(projectFile, .flag("--project-file")), (search?.found, .search("the nearest of the current folder and those above it"))],
            whenUnset: search?.notFound)
        /// Where a missing setting could have come from, saying where adhocbuild.plist was looked for.
        let inProjectFile = "in \(ProjectFile.defaultName)" + (project == nil ? "; \(search?.notFound ?? "")" : "")
        func flag(_ value: String?, _ name: String) -> SettingChooser.Candidate { (value, .flag(name)) }
        func fromProject(_ key: String) -> SettingChooser.Candidate {
            (project?.values[key], .projectFile(file: project?.path ?? ProjectFile.defaultName, key: key))
        }
        guard let app = chooser.choose("App", [flag(app, "--app"), fromProject("App")]) else {
            throw Incomplete(description: "missing --app PATH (or App \(inProjectFile))")
        }
        let out = chooser.choose("Out", [flag(out, "--out"), fromProject("Out")], fallback: "dist")!
        let folder = chooser.choose(
            "Environments", [flag(environmentsFolder, "--environments"), fromProject("Environments")], fallback: "environments")!
        // The password's variable is never expanded, wherever signing takes it from.
        let policy = ProcessVariablePolicy(
            allowed: allowedVariables, secrets: [signing.passwordVariable, project?.values["SignPasswordEnv"]].compactMap { $0 })
        let distribution = try EnvironmentDistribution(
            environment: environment, folder: folder, overrides: overrides, settings: settings, processEnvironment: processEnvironment,
            variablePolicy: policy, limits: limits.plist)
        let requestedPreset = try requestedPresetBaseURL(out: out, processEnvironment: processEnvironment)
        if requestedPreset.value != nil, baseURL != nil {
            throw Incomplete(description: "give --base-url or \(requestedPreset.origin), not both")
        }
        let publishTo = chooser.choose(
            "Publish", [flag(publish, "--publish"), distribution.candidate("Publish"), fromProject("Publish")],
            whenUnset: "published in DIST only")
        let releaseStore = try publishTo.map { try ReleaseStore.open($0, settings: store, environment: processEnvironment) }
        let baseURL = chooser.choose(
            "BaseURL",
            [
                flag(baseURL, "--base-url"), requestedPreset, distribution.candidate("BaseURL"), fromProject("BaseURL"),
                (releaseStore?.plainBaseURL, .derived("the store's own address (--publish; its page is written again with its links)")),
                detectedPresetBaseURL(out: out, processEnvironment: processEnvironment)
            ])
        guard let baseURL else {
            if let failure = distribution.failure { throw failure }
            let preset =
                ci == .teamcity
                ? "--teamcity-server, --build-type-id and --build-id for TeamCity's artifact URL" : "--ci teamcity|jenkins"
            throw Incomplete(
                description: "missing --base-url URL (or BaseURL in the environment's Distribution or \(inProjectFile), or \(preset))")
        }
        var options = ReleasePipeline.Options(environment: environment, input: app, baseURL: baseURL, out: out)
        let baseURLOrigin = chooser.chosen.last { $0.name == "BaseURL" }?.origin
        if baseURLOrigin == Self.jenkinsRequested || baseURLOrigin == Self.jenkinsDetected { options.baseURLSource = "Jenkins' BUILD_URL" }
        options.environmentsFolder = folder
        options.limits = limits
        options.notes = chooser.choose(
            "Notes", [flag(notes, "--notes"), distribution.candidate("Notes"), fromProject("Notes")], whenUnset: "the page has no notes")
        options.icon = chooser.choose(
            "Icon", [flag(icon, "--icon"), distribution.candidate("Icon"), fromProject("Icon")], whenUnset: "the bundle's icon")
        options.profile = chooser.choose(
            "Profile", [flag(profile, "--profile"), distribution.candidate("Profile"), fromProject("Profile")],
            whenUnset: "the app's own embedded.mobileprovision")
        options.indexTitle = chooser.choose("Title", [fromProject("Title")], fallback: "Builds")!
        options.devices = chooser.choose(
            "Devices", [flag(devices, "--devices"), distribution.candidate("Devices"), fromProject("Devices")],
            whenUnset: "the profiles are not checked against a device list")
        if requireDevices && options.devices == nil {
            throw Incomplete(
                description:
                    "--require-devices needs a device list: --devices STORE (or Devices in the environment's Distribution or \(inProjectFile))"
            )
        }
        options.requireDevices = requireDevices
        options.enrollURL = chooser.choose(
            "EnrollURL", [flag(enrollURL, "--enroll-url"), distribution.candidate("EnrollURL"), fromProject("EnrollURL")],
            whenUnset: "the page does not link to an enrollment page")
        do {
            options.signing = try SigningRequest.resolve(
                signing, projectFile: project, processEnvironment: processEnvironment, chooser: &chooser)
        } catch let mistake as SigningRequest.Mistake {
            throw Incomplete(description: mistake.description)
        }
        if let signProfile = options.signing?.appProfile, signProfile != options.profile {
            // The signer embeds the app's signing profile, whatever the profile to embed says.
            let origin = chooser.chosen.last { $0.name == "SignProfile" }?.origin.description ?? "SignProfile"
            chooser.supersede("Profile", by: "SignProfile \(signProfile) (from \(origin)) is embedded, as the app is re-signed with it")
        }
        options.allowHTTP = allowHTTP
        options.upload = releaseStore.map { store in
            var upload = ReleaseUpload(store: store)
            upload.replace = replace
            return upload
        }
        options.allowDecrease = allowDecrease
        options.replace = replace
        options.allowBrokenSignature = allowBrokenSignature
        options.allowExpired = allowExpired
        options.overrides = overrides
        options.settings = settings
        options.buildNumber = buildNumber
        options.processEnvironment = processEnvironment
        options.variablePolicy = policy
        return Plan(
            options: options, server: ci ?? CIServer.detect(in: processEnvironment), reportFile: reportFile, settings: chooser.chosen)
    }

    /// Where a base URL made from Jenkins' `BUILD_URL` comes from: `--ci jenkins`, or Jenkins detected.
    static let jenkinsRequested = SettingOrigin.flag("--ci jenkins (BUILD_URL)")
    static let jenkinsDetected = SettingOrigin.ciPreset("Jenkins' BUILD_URL (detected)")

    /// The artifact URL of a CI preset asked for on the command line: `--ci teamcity` with its three
    /// flags, or `--ci jenkins` (from `BUILD_URL`). Giving only some of the TeamCity flags is a mistake.
    func requestedPresetBaseURL(out: String, processEnvironment: [String: String]) throws -> SettingChooser.Candidate {
        let teamCityFlags = [teamCityServer, teamCityBuildTypeID, teamCityBuildID]
        if teamCityFlags.contains(where: { $0 != nil }) {
            guard ci == nil || ci == .teamcity else {
                throw Incomplete(
                    description: "--teamcity-server, --build-type-id and --build-id are for --ci teamcity, not --ci \(ci!.rawValue)")
            }
            guard let teamCityServer, let teamCityBuildTypeID, let teamCityBuildID else {
                throw Incomplete(
                    description: "the TeamCity preset needs all of --teamcity-server, --build-type-id and --build-id "
                        + "(TeamCity does not put them in the environment)")
            }
            return (
                CIArtifactURL.teamCity(server: teamCityServer, buildTypeID: teamCityBuildTypeID, buildID: teamCityBuildID, out: out),
                .flag("the TeamCity flags (--teamcity-server, --build-type-id, --build-id)")
            )
        }
        guard ci == .jenkins else { return (nil, .flag("--ci")) }
        guard let buildURL = processEnvironment["BUILD_URL"] else {
            throw Incomplete(description: "--ci jenkins needs BUILD_URL in the environment")
        }
        return (CIArtifactURL.jenkins(buildURL: buildURL, out: out), Self.jenkinsRequested)
    }

    /// The artifact URL of the CI server detected in the process environment (Jenkins' `BUILD_URL`),
    /// the weakest source of a base URL.
    func detectedPresetBaseURL(out: String, processEnvironment: [String: String]) -> SettingChooser.Candidate {
        guard ci == nil, CIServer.detect(in: processEnvironment) == .jenkins, let buildURL = processEnvironment["BUILD_URL"] else {
            return (nil, .builtIn)
        }
        return (CIArtifactURL.jenkins(buildURL: buildURL, out: out), Self.jenkinsDetected)
    }

    /// Plans, runs the pipeline and reports to the CI server: the plan (`onPlan`, for `--explain`),
    /// each step as it starts and finishes (`onStep`), then the failure or the release. `printLine`
    /// prints the CI server's service messages. A plan that fails on a file (not a usage mistake) is
    /// reported to the CI server too.
    public func run(
        processEnvironment: [String: String], printLine: @escaping @Sendable (String) -> Void,
        onPlan: (Plan) -> Void = { _ in },
        onStep: @escaping @Sendable (_ step: String, _ finished: Bool) -> Void
    ) throws -> ReleasePipeline.Result {
        let plan: Plan
        do { plan = try self.plan(processEnvironment: processEnvironment) } catch let error as Diagnostic {
            let server = ci ?? CIServer.detect(in: processEnvironment)
            CIReporter(server: server, environment: processEnvironment, reportFile: reportFile, print: printLine)
                .failed(Diagnostic.stepFailed("Plan the release", reason: error.description, hint: error.hint))
            throw error
        }
        onPlan(plan)
        let reporter = CIReporter(server: plan.server, environment: processEnvironment, reportFile: plan.reportFile, print: printLine)
        var pipeline = ReleasePipeline(options: plan.options)
        pipeline.onStep = { step, finished in
            if finished { reporter.stepFinished(step) } else { reporter.stepStarted(step) }
            onStep(step, finished)
        }
        var result: ReleasePipeline.Result
        do {
            // The report is written after the release is published: its files are checked before.
            do { try reporter.checkReportFiles() } catch let error as Diagnostic {
                throw Diagnostic.stepFailed("Check the CI report files", reason: error.description, hint: error.hint)
            }
            result = try pipeline.run()
        } catch let failure as Diagnostic where failure.code == .build(.stepFailed) {
            reporter.failed(failure)
            throw failure
        }
        result.warnings += try reporter.succeeded(result, out: plan.options.out)
        return result
    }
}
