import AdhocBuildKit
import Foundation
import PlistKit
import TestSupport
import Testing

@Suite struct ReleasePipelineTests {
    static var exampleApp: String { Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path }

    /// A development profile for the example app, made with openssl by the project's script.
    static func profile(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("example.mobileprovision")
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/make-example-profile.sh").path
        let result = try ProcessResult.run("/bin/bash", [script, path])
        try #require(result.status == 0, "make-example-profile.sh: \(result.stderrText)")
        return path
    }

    func options(_ folder: TemporaryFolder, environment: String = "Staging") throws -> ReleasePipeline.Options {
        var options = ReleasePipeline.Options(environment: environment, input: Self.exampleApp, baseURL: "https://builds.example.com/shoutout/",
                                              out: folder.path("dist"))
        options.environmentsFolder = SampleEnvironments.path
        options.profile = try Self.profile(folder)
        options.processEnvironment = [:]
        return options
    }

    @Test func aReleaseLandsInItsFolderWithLatestAndTheIndex() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var options = try options(folder)
        options.buildNumber = .exactly("42")
        let before = try Data(contentsOf: URL(fileURLWithPath: Self.exampleApp + "/Info.plist"))
        let result = try ReleasePipeline(options: options).run()
        #expect(result.releasePath == "Staging/1.4.0-42")
        #expect(result.pageURL == "https://builds.example.com/shoutout/Staging/1.4.0-42/")
        let release = folder.path("dist/Staging/1.4.0-42")
        for file in ["ShoutOut.ipa", "manifest.plist", "index.html", "icon-57.png", "icon-512.png", "version.json", "build.json"] {
            #expect(FileManager.default.fileExists(atPath: release + "/" + file), "\(file)")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist/Staging/latest")) == "1.4.0-42")
        #expect(try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8).contains("href=\"Staging/1.4.0-42/index.html\""))
        // The ipa carries the environment and the build number; the input app is untouched.
        let package = try IPAKitBridge.open(release + "/ShoutOut.ipa")
        #expect(package.identifier == "com.example.shoutout.staging" && package.build == "42")
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.exampleApp + "/Info.plist")) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path("dist")).filter { $0.hasPrefix(".adhocbuild-tmp") }
        #expect(leftovers == [])
    }

    @Test func aFailingStepLeavesNoRelease() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var options = try options(folder)
        options.profile = nil  // the example has no embedded profile, so verification fails
        do {
            _ = try ReleasePipeline(options: options).run()
            Issue.record("released without a profile")
        } catch let failure as ReleasePipeline.Failure {
            #expect(failure.step == "Verify")
            #expect(failure.reason.contains("has no embedded.mobileprovision"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("dist")).filter { !$0.hasPrefix(".adhocbuild.lock") } == [])
        var bad = try self.options(folder, environment: "Nowhere")
        bad.out = folder.path("dist2")
        #expect(throws: ReleasePipeline.Failure.self) { try ReleasePipeline(options: bad).run() }
    }

    @Test func baseURLTemplatesFillInTheReleaseAndVariables() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var options = try options(folder, environment: "QA")
        options.baseURL = "https://{HOST}/apps/{env}/{version}+{build}/"
        options.processEnvironment = ["HOST": "ci.example.com"]
        let result = try ReleasePipeline(options: options).run()
        #expect(result.pageURL == "https://ci.example.com/apps/QA/1.4.0%2B41/")
        options.baseURL = "https://{MISSING}/"
        #expect(throws: ReleasePipeline.Failure.self) { try ReleasePipeline(options: options).run() }
    }

    @Test func twoReleasesAtOnceBothLandAndTheIndexListsBoth() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try options(folder, environment: "Staging")
        var second = first
        second.environment = "QA"
        let group = DispatchGroup()
        let failures = Failures()
        for options in [first, second] {
            group.enter()
            DispatchQueue.global().async {
                defer { group.leave() }
                do { _ = try ReleasePipeline(options: options).run() } catch { failures.add("\(error)") }
            }
        }
        group.wait()
        #expect(failures.all == [])
        let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
        #expect(index.contains("Staging/1.4.0-41/index.html") && index.contains("QA/1.4.0-41/index.html"))
    }

    @Test func teamCityMessagesAreEscapedAsTeamCitySpecifies() {
        #expect(TeamCityMessage.escape("it's [done]|\n\r ü") == "it|'s |[done|]|||n|r |0x00fc")
        #expect(TeamCityMessage.attributes("setParameter", [("name", "a"), ("value", "x'y")]) == "##teamcity[setParameter name='a' value='x|'y']")
        #expect(CIServer.detect(in: ["TEAMCITY_VERSION": "2024.1"]) == .teamcity)
        #expect(CIServer.detect(in: ["GITHUB_ACTIONS": "true"]) == .github)
        #expect(CIServer.detect(in: ["GITLAB_CI": "true"]) == .gitlab)
        #expect(CIServer.detect(in: ["JENKINS_URL": "https://ci/"]) == .jenkins)
        #expect(CIServer.detect(in: [:]) == .none)
    }

    @Test func githubAndGitLabGetTheirOutputFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = ReleasePipeline.Result(environment: "Staging", version: "1.4.0", build: "42", releaseFolder: "dist/Staging/1.4.0-42",
                                            releasePath: "Staging/1.4.0-42", ipa: "dist/Staging/1.4.0-42/ShoutOut.ipa",
                                            pageURL: "https://b.example/Staging/1.4.0-42/", manifestURL: "https://b.example/m.plist",
                                            installURL: "itms-services://?action=download-manifest&url=x", warnings: [])
        let github = CIReporter(server: .github, environment: ["GITHUB_OUTPUT": folder.path("out"), "GITHUB_STEP_SUMMARY": folder.path("summary")],
                                print: { _ in })
        try github.succeeded(result, out: "dist")
        let outputs = try String(contentsOfFile: folder.path("out"), encoding: .utf8)
        #expect(outputs.contains("page-url=https://b.example/Staging/1.4.0-42/\n") && outputs.contains("ipa-path=dist/Staging/1.4.0-42/ShoutOut.ipa\n"))
        #expect(try String(contentsOfFile: folder.path("summary"), encoding: .utf8).hasPrefix("### Staging 1.4.0 (42)"))
        let gitlab = CIReporter(server: .gitlab, environment: [:], reportFile: folder.path("adhocbuild.env"), print: { _ in })
        try gitlab.succeeded(result, out: "dist")
        #expect(try String(contentsOfFile: folder.path("adhocbuild.env"), encoding: .utf8).contains("ADHOCBUILD_VERSION=1.4.0\n"))
        let lines = LineCollector()
        let teamcity = CIReporter(server: .teamcity, environment: [:], print: { lines.add($0) })
        try teamcity.succeeded(result, out: "dist")
        #expect(lines.all.first == "##teamcity[buildNumber '1.4.0 (42)']")
        #expect(lines.all.contains("##teamcity[publishArtifacts 'dist => dist']"))
    }
}

final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.lock(); items.append(item); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
}

typealias LineCollector = Failures

/// Reads an ipa's identity through the library the release used.
enum IPAKitBridge {
    static func open(_ path: String) throws -> (identifier: String?, build: String?) {
        let info = try PropertyList(data: try unzip(path)).value
        return (info["CFBundleIdentifier"]?.stringValue, info["CFBundleVersion"]?.stringValue)
    }

    static func unzip(_ path: String) throws -> Data {
        let result = try ProcessResult.run(try #require(ProcessResult.which("unzip")), ["-p", path, "Payload/ShoutOut.app/Info.plist"])
        return result.stdout
    }
}
