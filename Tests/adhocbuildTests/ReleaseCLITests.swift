import Foundation
import TestSupport
import Testing

/// `adhocbuild release` as a CI step: one short line with a project file, TeamCity service messages.
@Suite struct ReleaseCLITests {
    func profile(_ folder: TemporaryFolder) throws -> String {
        let path = folder.path("example.mobileprovision")
        let result = try ProcessResult.run(
            "/bin/bash", [Fixtures.packageRoot.appendingPathComponent("scripts/make-example-profile.sh").path, path])
        try #require(result.status == 0)
        return path
    }

    @Test func aProjectFileMakesTheCIStepOneShortLineAndTeamCityHearsEachStep() throws {
        try withTemporaryFolder { folder in
            let root = Fixtures.packageRoot.path
            _ = try folder.write(
                "adhocbuild.plist",
                """
                <plist version="1.0"><dict>
                <key>Environments</key><string>\(root)/environments</string>
                <key>App</key><string>\(root)/examples/ShoutOut/ShoutOut.app</string>
                <key>BaseURL</key><string>https://builds.example.com/shoutout/</string>
                <key>Out</key><string>dist</string>
                <key>Profile</key><string>\(try profile(folder))</string>
                </dict></plist>
                """)
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = "1"
            environment["TEAMCITY_VERSION"] = "2024.12"
            environment["BUILD_NUMBER"] = "77"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: AdhocBuildBinary.path)
            process.arguments = ["release", "--env", "staging", "--from-ci"]
            process.currentDirectoryURL = folder.url
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(output)")
            #expect(output.contains("##teamcity[progressStart 'Package']\n"))
            #expect(output.contains("##teamcity[progressFinish 'Package']\n"))
            #expect(output.contains("##teamcity[buildNumber '1.4.0 (77)']\n"))
            #expect(output.contains("##teamcity[publishArtifacts 'dist => dist']\n"))
            #expect(
                output.contains(
                    "##teamcity[setParameter name='adhocbuild.page_url' value='https://builds.example.com/shoutout/Staging/1.4.0-77/']\n"))
            #expect(
                output.hasSuffix(
                    "Install link: itms-services://?action=download-manifest&url=https%3A%2F%2Fbuilds.example.com%2Fshoutout%2FStaging%2F1.4.0-77%2Fmanifest.plist\n"
                ))
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-77/ShoutOut.ipa")))
        }
    }

    @Test func theJenkinsPresetBuildsArtifactURLsAndWritesProperties() throws {
        try withTemporaryFolder { folder in
            let root = Fixtures.packageRoot.path
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = "1"
            environment["BUILD_URL"] = "https://jenkins.example.com/job/shoutout/12/"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: AdhocBuildBinary.path)
            process.arguments = [
                "release", "--env", "QA", "--app", "\(root)/examples/ShoutOut/ShoutOut.app", "--environments", "\(root)/environments",
                "--profile", try profile(folder), "--out", "dist", "--ci", "jenkins", "--json"
            ]
            process.currentDirectoryURL = folder.url
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(output.contains("\"page_url\": \"https://jenkins.example.com/job/shoutout/12/artifact/dist/QA/1.4.0-41/\""))
            let properties = try String(contentsOfFile: folder.path("adhocbuild.properties"), encoding: .utf8)
            #expect(properties.contains("ADHOCBUILD_PAGE_URL=https\\://jenkins.example.com/job/shoutout/12/artifact/dist/QA/1.4.0-41/\n"))
        }
    }

    @Test func aFailureNamesTheStepAndTellsTeamCity() throws {
        try withTemporaryFolder { folder in
            let root = Fixtures.packageRoot.path
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = "1"
            let result = try ProcessResult.run(
                AdhocBuildBinary.path,
                [
                    "release", "--env", "Staging", "--app", "\(root)/examples/ShoutOut/ShoutOut.app", "--environments",
                    "\(root)/environments",
                    "--base-url", "https://b.example/", "--out", folder.path("dist"), "--ci", "teamcity", "--json"
                ], environment: environment)
            #expect(result.status == 1)
            #expect(
                result.stdoutText.contains(
                    "##teamcity[buildProblem description='Verify failed: Payload/ShoutOut.app: has no embedded.mobileprovision; a device will not install it' identity='adhocbuild-release']"
                ))
            #expect(
                result.stderrText
                    == "error: Verify failed: Payload/ShoutOut.app: has no embedded.mobileprovision; a device will not install it\n")
            let usage = try ProcessResult.run(
                AdhocBuildBinary.path, ["release", "--env", "Staging", "--app", "x.app", "--ci", "teamcity"],
                environment: environment)
            #expect(usage.status == 2)
            #expect(usage.stderrText.hasPrefix("error: --ci teamcity needs --teamcity-server, --build-type-id and --build-id"))
        }
    }
}
