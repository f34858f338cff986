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

    /// An adhocbuild.plist in `folder` for the example app, the bundled environments and a fresh profile.
    func writeProjectFile(_ folder: TemporaryFolder, baseURL: String, out: String? = nil) throws {
        let root = Fixtures.packageRoot.path
        let outKey = out.map { "<key>Out</key><string>\($0)</string>\n" } ?? ""
        _ = try folder.write(
            "adhocbuild.plist",
            """
            <plist version="1.0"><dict>
            <key>Environments</key><string>\(root)/environments</string>
            <key>App</key><string>\(root)/examples/ShoutOut/ShoutOut.app</string>
            <key>BaseURL</key><string>\(baseURL)</string>
            \(outKey)<key>Profile</key><string>\(try profile(folder))</string>
            </dict></plist>
            """)
    }

    @Test func aProjectFileMakesTheCIStepOneShortLineAndTeamCityHearsEachStep() throws {
        try withTemporaryFolder { folder in
            try writeProjectFile(folder, baseURL: "https://builds.example.com/shoutout/", out: "dist")
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
                    "##teamcity[setParameter name='adhocbuild.page_url' value='https://builds.example.com/shoutout/Staging/1.4.0-77/index.html']\n"
                ))
            #expect(
                output.hasSuffix(
                    "Install link: itms-services://?action=download-manifest&url=https%3A%2F%2Fbuilds.example.com%2Fshoutout%2FStaging%2F1.4.0-77%2Fmanifest.plist\n"
                ))
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-77/ShoutOut.ipa")))
        }
    }

    /// From a subfolder, `adhocbuild.plist` at the repository's top is found, as git finds its repository,
    /// and its paths are taken from its folder; the search stops at the folder holding `.git`, and when it
    /// finds nothing the error says where it looked (it was looked for in the current folder only).
    @Test func theProjectFileIsFoundFromASubfolderUpToTheRepositorysTop() throws {
        try withTemporaryFolder { folder in
            let root = Fixtures.packageRoot.path
            for path in ["repo/.git", "repo/ios/App"] {
                try FileManager.default.createDirectory(atPath: folder.path(path), withIntermediateDirectories: true)
            }
            let project = """
                <plist version="1.0"><dict>
                <key>Environments</key><string>\(root)/environments</string>
                <key>App</key><string>\(root)/examples/ShoutOut/ShoutOut.app</string>
                <key>BaseURL</key><string>https://builds.example.com/shoutout/</string>
                <key>Out</key><string>dist</string>
                <key>Profile</key><string>\(try profile(folder))</string>
                </dict></plist>
                """
            _ = try folder.write("repo/adhocbuild.plist", project)
            let subfolder = folder.path("repo/ios/App")
            let found = try AdhocBuildBinary.run(["release", "--env", "Staging", "--ci", "none", "--explain"], in: subfolder)
            #expect(found.status == 0, "\(found.stderrText)")
            #expect(
                found.stdoutText.split(separator: "\n").contains {
                    $0.hasPrefix("  ProjectFile ") && $0.contains(" ../../adhocbuild.plist ")
                        && $0.hasSuffix("from the nearest of the current folder and those above it")
                }, "\(found.stdoutText)")
            #expect(FileManager.default.fileExists(atPath: folder.path("repo/dist/Staging/latest/ShoutOut.ipa")))
            // Above the repository's top it is not looked for.
            try FileManager.default.moveItem(atPath: folder.path("repo/adhocbuild.plist"), toPath: folder.path("adhocbuild.plist"))
            let missing = try AdhocBuildBinary.run(["release", "--env", "Staging", "--ci", "none"], in: subfolder)
            #expect(missing.status == 2)
            #expect(
                missing.stderrText.hasPrefix(
                    "error: missing --app PATH (or App in adhocbuild.plist; no adhocbuild.plist in \(subfolder) or the folders above it "
                        + "up to \(folder.path("repo")) (the repository's top))\n"), "\(missing.stderrText)")
        }
    }

    /// The arguments of a release of the example app into `folder/dist`.
    func releaseArguments(_ folder: TemporaryFolder) throws -> [String] {
        let root = Fixtures.packageRoot.path
        return [
            "release", "--env", "Staging", "--app", root + "/examples/ShoutOut/ShoutOut.app", "--environments", root + "/environments",
            "--base-url", "https://builds.example.com/shoutout/", "--out", folder.path("dist"), "--profile", try profile(folder),
            "--ci", "none", "-q"
        ]
    }

    /// A second release of the same version and build would replace what testers are installing: it
    /// is refused (exit 1, DIST as it was) unless `--replace` is given.
    @Test func releasingTheSameBuildAgainIsRefusedUnlessReplaceIsGiven() throws {
        try withTemporaryFolder { folder in
            let arguments = try releaseArguments(folder)
            let first = try AdhocBuildBinary.run(arguments)
            #expect(first.status == 0, "\(first.stderrText)")
            let before = folder.snapshot().filter { $0.key.hasPrefix("dist/") }
            #expect(!before.keys.contains { $0.hasSuffix(".adhocbuild.lock") }, "a lock file is left in DIST")
            let again = try AdhocBuildBinary.run(arguments)
            #expect(again.status == 1)
            #expect(
                again.stderrText.contains(
                    "\(folder.path("dist/Staging/1.4.0-41")): is already published, and testers may be installing it; "
                        + "give the build a new number, or pass --replace to replace it"), "\(again.stderrText)")
            #expect(folder.snapshot().filter { $0.key.hasPrefix("dist/") } == before)
            let replaced = try AdhocBuildBinary.run(arguments + ["--replace"])
            #expect(replaced.status == 0, "\(replaced.stderrText)")
            // The index lists the release as often as before it was replaced (once, not twice).
            func links(_ index: Data?) -> Int {
                String(decoding: index ?? Data(), as: UTF8.self).components(separatedBy: "href=\"Staging/1.4.0-41/index.html\"").count
            }
            #expect(links(try Data(contentsOf: URL(fileURLWithPath: folder.path("dist/index.html")))) == links(before["dist/index.html"]))
            #expect(links(before["dist/index.html"]) > 1)
            let feed = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: folder.path("dist/Staging/latest/version.json"))))
            #expect((feed as? [String: Any])?["build"] as? String == "41")
        }
    }

    /// The advice of the build-number check works on `release`: `--allow-decrease` exists there.
    @Test func aBuildNumberGoingBackwardsNeedsAllowDecreaseWhichReleaseTakes() throws {
        try withTemporaryFolder { folder in
            let arguments = try releaseArguments(folder) + ["--from-ci"]
            let ci = ["TEAMCITY_VERSION": "2025.1", "BUILD_NUMBER": "12"]
            let refused = try AdhocBuildBinary.run(arguments, extraEnvironment: ci)
            #expect(refused.status == 1)
            #expect(refused.stderrText.contains("pass --allow-decrease if that is intended"), "\(refused.stderrText)")
            let allowed = try AdhocBuildBinary.run(arguments + ["--allow-decrease"], extraEnvironment: ci)
            #expect(allowed.status == 0, "\(allowed.stderrText)")
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-12/ShoutOut.ipa")))
        }
    }

    /// On the command line too: the bad counter is named as coming from BUILD_NUMBER before the build
    /// is copied, and a base URL made from Jenkins' BUILD_URL is named as such.
    @Test func aBadValueFromACIVariableNamesTheVariable() throws {
        try withTemporaryFolder { folder in
            let counter = try AdhocBuildBinary.run(
                try releaseArguments(folder) + ["--from-ci"], extraEnvironment: ["BUILD_NUMBER": "1207-rc"])
            #expect(counter.status == 1)
            #expect(
                counter.stderrText.hasPrefix(
                    "error: Check the build number failed: '1207-rc' (from BUILD_NUMBER) is not a valid build number"),
                "\(counter.stderrText)")
            #expect(!counter.stdoutText.contains("Copy the build"))
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
            let root = Fixtures.packageRoot.path
            let jenkins = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", root + "/examples/ShoutOut/ShoutOut.app", "--environments",
                    root + "/environments",
                    "--out", "dist", "--profile", try profile(folder), "--ci", "jenkins"
                ], in: folder.url.path, extraEnvironment: ["BUILD_URL": "http://jenkins.example.com/job/shoutout/12/"])
            #expect(jenkins.status == 1)
            #expect(
                jenkins.stderrText.hasPrefix(
                    "error: Check the base URL failed: base URL 'http://jenkins.example.com/job/shoutout/12/artifact/dist/' uses http"),
                "\(jenkins.stderrText)")
            #expect(jenkins.stderrText.contains("(it is made from Jenkins' BUILD_URL)"), "\(jenkins.stderrText)")
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
            #expect(output.contains("\"page_url\": \"https://jenkins.example.com/job/shoutout/12/artifact/dist/QA/1.4.0-41/index.html\""))
            let properties = try String(contentsOfFile: folder.path("adhocbuild.properties"), encoding: .utf8)
            #expect(
                properties.contains(
                    "ADHOCBUILD_PAGE_URL=https\\://jenkins.example.com/job/shoutout/12/artifact/dist/QA/1.4.0-41/index.html\n"))
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
                AdhocBuildBinary.path,
                ["release", "--env", "Staging", "--app", "x.app", "--ci", "teamcity", "--teamcity-server", "https://tc.example"],
                environment: environment)
            #expect(usage.status == 2)
            #expect(usage.stderrText.hasPrefix("error: the TeamCity preset needs all of --teamcity-server, --build-type-id and --build-id"))
        }
    }

    /// The README's TeamCity step, with the README's adhocbuild.plist (which sets BaseURL) and the
    /// bundled environments (whose Base sets Distribution:BaseURL): the flags win, and `--explain` says so.
    @Test func theReadmesTeamCityStepPublishesUnderTheFlagsNotTheProjectFileAndExplainsWhy() throws {
        try withTemporaryFolder { folder in
            try writeProjectFile(folder, baseURL: "https://files.example.com/shoutout/")
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = "1"
            environment["TEAMCITY_VERSION"] = "2025.1"
            environment["BUILD_NUMBER"] = "12"
            let result = try ProcessResult.run(
                AdhocBuildBinary.path,
                [
                    "release", "--env", "staging", "--from-ci", "--out", "dist", "--ci", "teamcity", "--teamcity-server",
                    "https://tc.example", "--build-type-id", "Shout_Staging", "--build-id", "991", "--allow-decrease", "--explain"
                ], environment: environment, in: folder.url.path)
            #expect(result.status == 0, "\(result.stderrText)")
            let pageURL = "https://tc.example/guestAuth/repository/download/Shout_Staging/991:id/dist/Staging/1.4.0-12/index.html"
            #expect(result.stdoutText.contains("##teamcity[setParameter name='adhocbuild.page_url' value='\(pageURL)']"))
            let baseURLLine = result.stdoutText.split(separator: "\n").first { $0.hasPrefix("  BaseURL ") }
            #expect(baseURLLine?.hasSuffix("from the TeamCity flags (--teamcity-server, --build-type-id, --build-id)") == true)
            #expect(result.stdoutText.contains("  App "))
        }
    }
}
