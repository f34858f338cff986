import AdhocBuildKit
import Foundation
import ObjectStorage
import PlistKit
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

/// How `release` fills what its command line leaves out: project file, CI presets, defaults.
@Suite struct ReleaseRequestTests {
    @Test func teamCityAndJenkinsPresetsPointAtTheArtifacts() {
        #expect(
            CIArtifactURL.teamCity(server: "https://tc.example", buildTypeID: "App_Release", buildID: "77", out: "build/dist")
                == "https://tc.example/guestAuth/repository/download/App_Release/77:id/dist/")
        #expect(
            CIArtifactURL.jenkins(buildURL: "https://ci.example/job/app/12/", out: "dist")
                == "https://ci.example/job/app/12/artifact/dist/")
    }

    @Test func theCommandLineWinsAndDefaultsFillTheRest() throws {
        var request = ReleaseRequest(environment: "Staging")
        request.app = "A.app"
        request.baseURL = "https://b.example/"
        request.projectFile = nil
        let plan = try request.plan(processEnvironment: ["GITHUB_ACTIONS": "true"])
        #expect(plan.options.out == "dist")
        #expect(plan.options.environmentsFolder == "environments")
        #expect(plan.options.baseURL == "https://b.example/")
        #expect(plan.server == .github)
    }

    @Test func jenkinsWithoutABaseURLTakesBuildURLOrSaysWhatIsMissing() throws {
        var request = ReleaseRequest(environment: "Staging")
        request.app = "A.app"
        request.ci = .jenkins
        #expect(
            try request.plan(processEnvironment: ["BUILD_URL": "https://ci.example/job/app/12"]).options.baseURL
                == "https://ci.example/job/app/12/artifact/dist/")
        #expect(throws: ReleaseRequest.Incomplete.self) { try request.plan(processEnvironment: [:]) }
    }

    @Test func theCIsCommitAndBranchAreFoundOnce() {
        #expect(CIEnvironment.commit(in: ["GITHUB_SHA": "", "GIT_COMMIT": "abc"]) == "abc")
        #expect(CIEnvironment.branch(in: ["CI_COMMIT_REF_NAME": "main"]) == "main")
        #expect(CIEnvironment.branch(in: [:]) == nil)
    }

    // MARK: - One precedence: flag > environment > adhocbuild.plist > detected CI server > default

    /// A project with environments (Base sets `Distribution:BaseURL` when `environmentBaseURL` is
    /// given) and an `adhocbuild.plist` setting App, BaseURL and Notes, as the README shows.
    private func project(_ folder: TemporaryFolder, environmentBaseURL: String? = nil, distribution: String = "") throws -> ReleaseRequest {
        try FileManager.default.createDirectory(atPath: folder.path("config/environments"), withIntermediateDirectories: true)
        let baseURL = environmentBaseURL.map { "<key>BaseURL</key><string>\($0)</string>" } ?? ""
        _ = try folder.write(
            "config/environments/Base.plist",
            "<plist version=\"1.0\"><dict><key>Distribution</key><dict>\(baseURL)</dict></dict></plist>")
        _ = try folder.write(
            "config/environments/Staging.plist",
            "<plist version=\"1.0\"><dict><key>Distribution</key><dict>\(distribution)</dict></dict></plist>")
        _ = try folder.write(
            "adhocbuild.plist",
            """
            <plist version="1.0"><dict>
            <key>App</key><string>build/ShoutOut.app</string>
            <key>BaseURL</key><string>https://builds.example.com/shoutout/</string>
            <key>Notes</key><string>RELEASE_NOTES.txt</string>
            <key>Environments</key><string>config/environments</string>
            </dict></plist>
            """)
        var request = ReleaseRequest(environment: "Staging")
        request.projectFile = folder.path("adhocbuild.plist")
        return request
    }

    private func setting(_ plan: ReleaseRequest.Plan, _ name: String) -> ReleaseSetting? {
        plan.settings.first { $0.name == name }
    }

    @Test func theTeamCityFlagsOverrideTheProjectFilesBaseURL() throws {
        try withTemporaryFolder { folder in
            var request = try project(folder)
            request.ci = .teamcity
            request.teamCityServer = "https://tc.example"
            request.teamCityBuildTypeID = "App_Staging"
            request.teamCityBuildID = "77"
            let plan = try request.plan(processEnvironment: ["TEAMCITY_VERSION": "2025.1"])
            #expect(plan.options.baseURL == "https://tc.example/guestAuth/repository/download/App_Staging/77:id/dist/")
            #expect(setting(plan, "BaseURL")?.origin == .flag("the TeamCity flags (--teamcity-server, --build-type-id, --build-id)"))
        }
    }

    @Test func theEnvironmentsBaseURLIsUsedWithoutAFlagAndBeatsTheProjectFile() throws {
        try withTemporaryFolder { folder in
            let request = try project(folder, environmentBaseURL: "https://env.example.com/$(CONFIGURATION)/{version}-{build}/")
            let plan = try request.plan(processEnvironment: [:])
            #expect(plan.options.baseURL == "https://env.example.com/Staging/{version}-{build}/")
            #expect(
                setting(plan, "BaseURL")?.origin
                    == .environment(file: folder.path("config/environments") + "/Base.plist", keyPath: "Distribution:BaseURL"))
        }
    }

    @Test func aBaseURLFlagBeatsTheEnvironment() throws {
        try withTemporaryFolder { folder in
            var request = try project(folder, environmentBaseURL: "https://env.example.com/")
            request.baseURL = "https://flag.example.com/"
            let plan = try request.plan(processEnvironment: [:])
            #expect(plan.options.baseURL == "https://flag.example.com/")
            #expect(setting(plan, "BaseURL")?.origin == .flag("--base-url"))
        }
    }

    @Test func theProjectFileBeatsTheDetectedCIServersArtifactURL() throws {
        try withTemporaryFolder { folder in
            let request = try project(folder)
            let jenkins = ["JENKINS_URL": "https://ci.example/", "BUILD_URL": "https://ci.example/job/app/12/"]
            #expect(try request.plan(processEnvironment: jenkins).options.baseURL == "https://builds.example.com/shoutout/")
            var withoutBaseURL = request
            withoutBaseURL.projectFile = nil
            withoutBaseURL.app = "A.app"
            withoutBaseURL.environmentsFolder = folder.path("config/environments")
            let plan = try withoutBaseURL.plan(processEnvironment: jenkins)
            #expect(plan.options.baseURL == "https://ci.example/job/app/12/artifact/dist/")
            #expect(setting(plan, "BaseURL")?.origin == .ciPreset("Jenkins' BUILD_URL (detected)"))
        }
    }

    @Test func askingForTheJenkinsPresetWithCIJenkinsBeatsTheEnvironment() throws {
        try withTemporaryFolder { folder in
            var request = try project(folder, environmentBaseURL: "https://env.example.com/")
            request.ci = .jenkins
            let plan = try request.plan(processEnvironment: ["BUILD_URL": "https://ci.example/job/app/12/"])
            #expect(plan.options.baseURL == "https://ci.example/job/app/12/artifact/dist/")
        }
    }

    @Test func aBaseURLAndTheTeamCityFlagsTogetherOrOnlySomeTeamCityFlagsAreUsageMistakes() throws {
        try withTemporaryFolder { folder in
            var both = try project(folder)
            both.baseURL = "https://flag.example.com/"
            both.teamCityServer = "https://tc.example"
            both.teamCityBuildTypeID = "App"
            both.teamCityBuildID = "1"
            #expect(throws: ReleaseRequest.Incomplete.self) { try both.plan(processEnvironment: [:]) }
            var some = try project(folder)
            some.teamCityServer = "https://tc.example"
            let error = #expect(throws: ReleaseRequest.Incomplete.self) { try some.plan(processEnvironment: [:]) }
            #expect(error?.description.contains("--build-type-id") == true)
        }
    }

    @Test func theEnvironmentsNotesIconAndProfileBeatTheProjectFileAndAreTakenFromItsFolder() throws {
        try withTemporaryFolder { folder in
            var request = try project(
                folder,
                distribution:
                    "<key>Notes</key><string>notes/staging.txt</string><key>Profile</key><string>/abs/Staging.mobileprovision</string>"
                    + "<key>Icon</key><string>staging-icon.png</string>")
            let plan = try request.plan(processEnvironment: [:])
            let environments = folder.path("config/environments")
            #expect(plan.options.notes == environments + "/notes/staging.txt")
            #expect(plan.options.profile == "/abs/Staging.mobileprovision")
            #expect(plan.options.icon == environments + "/staging-icon.png")
            #expect(setting(plan, "Notes")?.origin == .environment(file: environments + "/Staging.plist", keyPath: "Distribution:Notes"))
            request.overrides = [(PlistKeyPath(["Distribution", "Icon"]), "from-set.png")]
            request.notes = "flag-notes.txt"
            let overridden = try request.plan(processEnvironment: [:])
            #expect(overridden.options.icon == "from-set.png")
            #expect(setting(overridden, "Icon")?.origin.description == "--set Distribution:Icon")
            #expect(overridden.options.notes == "flag-notes.txt")
        }
    }

    /// `Publish` in the environment's Distribution is a store's address, taken as written (not as a path
    /// from the environment's folder); the flag beats it; the store is opened with the credentials the
    /// process environment names, and without them the plan fails.
    @Test func theEnvironmentsPublishNamesTheStoreAndTheFlagBeatsIt() throws {
        try withTemporaryFolder { folder in
            var request = try project(folder, distribution: "<key>Publish</key><string>s3://staging-builds/ios/</string>")
            request.store.endpoint = "https://minio.example.com:9000"
            request.store.addressing = .path
            let credentials = ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"]
            let plan = try request.plan(processEnvironment: credentials)
            let upload = try #require(plan.options.upload)
            #expect(upload.store.location == S3Location(bucket: "staging-builds", prefix: "ios/"))
            #expect(upload.store.plainBaseURL == "https://minio.example.com:9000/staging-builds/ios/")
            #expect(
                setting(plan, "Publish")?.origin
                    == .environment(file: folder.path("config/environments") + "/Staging.plist", keyPath: "Distribution:Publish"))
            request.publish = "s3://other-builds/"
            #expect(try request.plan(processEnvironment: credentials).options.upload?.store.location.bucket == "other-builds")
            // adhocbuild.plist's Publish is an address too, not a path from the file's folder.
            let plist = try String(contentsOfFile: folder.path("adhocbuild.plist"), encoding: .utf8)
            _ = try folder.write(
                "adhocbuild.plist",
                plist.replacingOccurrences(of: "<dict>", with: "<dict><key>Publish</key><string>s3://project-builds/app/</string>"))
            _ = try folder.write("config/environments/Staging.plist", "<plist version=\"1.0\"><dict/></plist>")
            request.publish = nil
            let fromProject = try request.plan(processEnvironment: credentials).options.upload?.store.location
            #expect(fromProject == S3Location(bucket: "project-builds", prefix: "app/"))
            let noCredentials = ["HOME": folder.path("home")]
            #expect(throws: Diagnostic.self) { _ = try request.plan(processEnvironment: noCredentials) }
        }
    }

    @Test func aDistributionValueThatIsNotAStringNamesItsFileAndKeyPath() throws {
        try withTemporaryFolder { folder in
            let request = try project(folder, distribution: "<key>Profile</key><integer>3</integer>")
            let error = expectDiagnostic(BuildProblem.self) { try request.plan(processEnvironment: [:]) }
            #expect(error?.description.contains("Staging.plist") == true)
            #expect(error?.description.contains("Distribution:Profile") == true)
        }
    }

    @Test func anEnvironmentThatCannotBeReadIsTheReasonGivenWhenNoBaseURLIsFound() throws {
        try withTemporaryFolder { folder in
            var request = ReleaseRequest(environment: "Stagin")
            request.app = "A.app"
            request.projectFile = nil
            request.environmentsFolder = try project(folder).environmentsFolder ?? folder.path("config/environments")
            let error = #expect(throws: Diagnostics.self) { try request.plan(processEnvironment: [:]) }
            #expect(error?.description.contains("did you mean 'Staging'") == true)
        }
    }

    @Test func theExplanationNamesEverySettingAndWhereItCameFrom() throws {
        try withTemporaryFolder { folder in
            let request = try project(folder, environmentBaseURL: "https://env.example.com/")
            let lines = ReleaseSetting.explanation(try request.plan(processEnvironment: [:]).settings)
            #expect(lines.first == "Settings (\(ReleaseSetting.precedence)):")
            let byName = Dictionary(
                uniqueKeysWithValues: lines.dropFirst().map { line in
                    (String(line.split(separator: " ").first!), line)
                })
            #expect(
                Set(byName.keys) == [
                    "ProjectFile", "App", "Out", "Environments", "Publish", "BaseURL", "Notes", "Icon", "Profile", "Title", "SignIdentity",
                    "Devices", "EnrollURL"
                ])
            #expect(byName["Publish"]!.hasSuffix("not set: published in DIST only"))
            #expect(byName["Devices"]!.hasSuffix("not set: the profiles are not checked against a device list"))
            #expect(byName["EnrollURL"]!.hasSuffix("not set: the page does not link to an enrollment page"))
            #expect(byName["ProjectFile"]!.hasSuffix("from --project-file"))
            #expect(byName["App"]!.hasSuffix("from \(folder.path("adhocbuild.plist")) at 'App'"))
            #expect(byName["BaseURL"]!.contains("Base.plist at 'Distribution:BaseURL'"))
            #expect(byName["Out"]!.hasSuffix("from default"))
            #expect(byName["Icon"]!.hasSuffix("not set: the bundle's icon"))
            #expect(byName["SignIdentity"]!.hasSuffix("not set: the app is not re-signed"))
        }
    }
}
