import AdhocBuildKit
import Foundation
import Testing

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
}
