import Foundation
import TestSupport
import Testing

/// `adhocbuild env` and `adhocbuild version` as a CI step runs them.
@Suite struct EnvAndVersionCLITests {
    static var environments: String { Fixtures.packageRoot.appendingPathComponent("environments").path }

    @Test func envListShowsInheritanceAndFiles() throws {
        let result = try AdhocBuildBinary.run(["env", "list", "--environments", Self.environments])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("QA       inherits Staging  \(Self.environments)/QA.plist\n"))
    }

    @Test func envShowPrintsAPlistAndExplainsItsSources() throws {
        let xml = try AdhocBuildBinary.run(["env", "show", "staging", "--environments", Self.environments])
        #expect(xml.status == 0)
        #expect(xml.stdoutText.hasPrefix("<?xml"))
        #expect(xml.stdoutText.contains("<string>com.example.shoutout.staging</string>"))
        let explain = try AdhocBuildBinary.run([
            "env", "show", "QA", "--explain", "--environments", Self.environments,
            "--set", "Settings:LogLevel=trace"
        ])
        #expect(explain.stdoutText.contains("Settings:LogLevel = \"trace\"  (--set)\n"))
        #expect(
            explain.stdoutText.contains(
                "Settings:Features:VoiceShouts = true  (\(Self.environments)/QA.plist: Settings:Features:VoiceShouts)\n"))
    }

    @Test func envCheckExitsOneWithEveryProblemAndWritesJUnit() throws {
        try withTemporaryFolder { folder in
            try folder.create(
                "envs/Base.plist",
                Data("<plist><dict><key>Settings</key><dict><key>URL</key><string>http://x</string></dict></dict></plist>".utf8))
            try folder.create(
                "envs/A.plist", Data("<plist><dict><key>Settings</key><dict><key>Extra</key><true/></dict></dict></plist>".utf8))
            try folder.create("envs/B.plist", Data("<plist><dict/></plist>".utf8))
            let envs = folder.path("envs")
            let result = try AdhocBuildBinary.run(["env", "check", "--environments", envs, "--junit", folder.path("junit.xml")])
            #expect(result.status == 1)
            #expect(
                result.stderrText == """
                    warning: \(envs)/Base.plist: at 'Settings:URL': 'http://x' is not https; iOS refuses OTA installs and App Transport Security blocks plain http
                    error: \(envs)/B.plist: at 'Settings:Extra': is missing (A has it)

                    """)
            // Base's warning concerns both environments and is printed once.
            #expect(result.stdoutText == "2 environments checked: 1 error, 1 warning\n")
            #expect(try String(contentsOfFile: folder.path("junit.xml"), encoding: .utf8).contains("tests=\"2\" failures=\"1\""))
            let sample = try AdhocBuildBinary.run(["env", "check", "--environments", Self.environments])
            #expect(sample.status == 0)
            #expect(sample.stdoutText == "4 environments checked: 0 errors, 0 warnings\n")
        }
    }

    /// JUnit counts what the console counts: an error in Base that four environments share is one
    /// failure (it said `failures="4"` beside `1 error`), named by them; a clean environment passes.
    @Test func envCheckJUnitFailuresAreTheConsolesErrors() throws {
        try withTemporaryFolder { folder in
            try folder.create(
                "envs/Base.plist",
                Data("<plist><dict><key>Settings</key><dict><key>API</key><string>$(API_HOST)</string></dict></dict></plist>".utf8))
            for name in ["A", "B", "C", "D"] { try folder.create("envs/\(name).plist", Data("<plist><dict/></plist>".utf8)) }
            let envs = folder.path("envs")
            let result = try AdhocBuildBinary.run(["env", "check", "--environments", envs, "--junit", folder.path("junit.xml")])
            #expect(result.status == 1)
            #expect(result.stdoutText == "4 environments checked: 1 error, 0 warnings\n")
            let xml = try String(contentsOfFile: folder.path("junit.xml"), encoding: .utf8)
            #expect(xml.contains("<testsuite name=\"adhocbuild env check\" tests=\"1\" failures=\"1\" errors=\"0\">"), "\(xml)")
            #expect(xml.contains("<testcase classname=\"environments\" name=\"A, B, C, D\" file=\"\(envs)/Base.plist\">"), "\(xml)")
            // With the variable defined in one environment, that one passes and the other three share one failure.
            try folder.create(
                "envs/D.plist",
                Data("<plist><dict><key>Variables</key><dict><key>API_HOST</key><string>d.example.com</string></dict></dict></plist>".utf8))
            let partly = try AdhocBuildBinary.run(["env", "check", "--environments", envs, "--junit", folder.path("junit.xml")])
            #expect(partly.stdoutText == "4 environments checked: 1 error, 0 warnings\n")
            let partlyXML = try String(contentsOfFile: folder.path("junit.xml"), encoding: .utf8)
            #expect(partlyXML.contains("tests=\"2\" failures=\"1\""), "\(partlyXML)")
            #expect(partlyXML.contains("name=\"A, B, C\""), "\(partlyXML)")
        }
    }

    /// `--dry-run` on a signed app says what the real run would do, with its exit code: the refusal
    /// and 1 (it predicted success, `going on: --allow-broken-signature`, and exited 0).
    @Test(Fixtures.enabled) func aDryRunOnASignedAppExitsAsTheRealRunWould() throws {
        try withTemporaryFolder { folder in
            let unzip = try ProcessResult.run(
                "/usr/bin/env",
                [
                    "python3", "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
                    Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, folder.path("unpacked")
                ])
            try #require(unzip.status == 0, "\(unzip.stderrText)")
            let app = folder.path("unpacked/Payload/Test.app")
            let before = folder.snapshot()
            for arguments in [
                ["env", "apply", "Staging", "--app", app, "--environments", Self.environments],
                ["version", "bump", "build", "--to", "9", app]
            ] {
                let real = try AdhocBuildBinary.run(arguments)
                let dry = try AdhocBuildBinary.run(arguments + ["--dry-run"])
                #expect(real.status == 1 && dry.status == 1, "\(arguments): \(dry.stderrText)")
                #expect(dry.stderrText == real.stderrText, "\(arguments)")
                #expect(dry.stderrText.contains("which the signature of Test.app seals; iOS will refuse to install it"), "\(arguments)")
                #expect(!dry.stderrText.contains("going on"), "\(arguments)")
                let allowed = try AdhocBuildBinary.run(arguments + ["--dry-run", "--allow-broken-signature"])
                #expect(allowed.status == 0, "\(arguments): \(allowed.stderrText)")
                #expect(allowed.stderrText.contains("(going on: --allow-broken-signature)"), "\(arguments)")
            }
            #expect(folder.snapshot() == before)
        }
    }

    @Test func envApplyToAProjectIsIdempotentAndHasADryRun() throws {
        try withTemporaryFolder { folder in
            try folder.create(
                "ShoutOut/Info.plist", Data("<plist><dict><key>CFBundleIdentifier</key><string>x</string></dict></plist>".utf8))
            let arguments = ["env", "apply", "Release", "--project", folder.url.path, "--environments", Self.environments]
            let dry = try AdhocBuildBinary.run(arguments + ["--dry-run"])
            #expect(dry.stdoutText.contains("environment.plist: would be created\n"))
            #expect(!FileManager.default.fileExists(atPath: folder.path("ShoutOut/environment.plist")))
            let first = try AdhocBuildBinary.run(arguments)
            #expect(first.status == 0)
            #expect(
                first.stderrText.contains(
                    "\(folder.path("ShoutOut/environment.plist")) is new: add it to the app target in Xcode (Copy Bundle Resources)"),
                "\(first.stderrText)")
            #expect(
                first.stdoutText.contains(
                    "Info.plist: updated\n  CFBundleIdentifier: \"x\" -> \"com.example.shoutout\"\n  CFBundleDisplayName: (none) -> \"ShoutOut\"\n"
                        + "  Configuration: (none) -> \"Release\"\n"), "\(first.stdoutText)")
            let second = try AdhocBuildBinary.run(arguments)
            #expect(second.stderrText == "", "\(second.stderrText)")
            #expect(
                second.stdoutText
                    == "\(folder.path("ShoutOut/Info.plist")): unchanged\n\(folder.path("ShoutOut/environment.plist")): unchanged\nApplied Release.\n"
            )
            let both = try AdhocBuildBinary.run(["env", "apply", "Release", "--environments", Self.environments])
            #expect(both.status == 2)
            #expect(both.stderrText.hasPrefix("error: give exactly one of --app PATH.app and --project DIR\n"))
        }
    }

    /// `env apply` and `release` run the checks of `env check` on the environment they resolve, every
    /// `--set` applied, before they write anything: an invalid bundle identifier is refused.
    @Test func envApplyAndReleaseRefuseWhatEnvCheckRejects() throws {
        try withTemporaryFolder { folder in
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path, toPath: app)
            let before = folder.snapshot()
            let bad = "Info:CFBundleIdentifier=com.example/bad id"
            let apply = try AdhocBuildBinary.run([
                "env", "apply", "Staging", "--app", app, "--environments", Self.environments, "--set", bad
            ])
            #expect(apply.status == 1)
            #expect(apply.stderrText.contains("'com.example/bad id' is not a valid bundle identifier"), "\(apply.stderrText)")
            #expect(folder.snapshot() == before)
            let release = try AdhocBuildBinary.run([
                "release", "--env", "Staging", "--app", app, "--environments", Self.environments, "--set", bad,
                "--base-url", "https://builds.example.com/", "--out", folder.path("dist"), "--ci", "none"
            ])
            #expect(release.status == 1)
            #expect(release.stderrText.contains("'com.example/bad id' is not a valid bundle identifier"), "\(release.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
        }
    }

    /// A misspelt `--set` is refused like the same typo in a file, naming the option, by every command that
    /// resolves an environment; `env check` still collects every problem and ends with its summary.
    @Test func envCheckApplyAndReleaseRefuseAMisspeltSetNamingTheOption() throws {
        try withTemporaryFolder { folder in
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path, toPath: app)
            let before = folder.snapshot()
            let problem = "--set 'Setings:LogLevel=trace': unknown section 'Setings'; did you mean 'Settings'?"
            let message = "error: \(problem)\n"
            let bad = ["--environments", Self.environments, "--set", "Setings:LogLevel=trace"]
            let check = try AdhocBuildBinary.run(["env", "check"] + bad)
            #expect(check.status == 1)
            #expect(check.stderrText == message)
            #expect(check.stdoutText == "4 environments checked: 1 error, 0 warnings\n")
            let apply = try AdhocBuildBinary.run(["env", "apply", "Staging", "--app", app] + bad)
            #expect(apply.status == 1)
            #expect(apply.stderrText == message, "\(apply.stderrText)")
            let release = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", app, "--base-url", "https://builds.example.com/", "--out", folder.path("dist"),
                    "--ci", "none"
                ]
                    + bad)
            #expect(release.status == 1)
            #expect(release.stderrText.contains(problem), "\(release.stderrText)")
            #expect(folder.snapshot() == before)
        }
    }

    @Test func envCheckGoesOnPastAnUnknownTopLevelKeyAndEndsWithTheSummary() throws {
        try withTemporaryFolder { folder in
            try folder.create(
                "envs/Staging.plist",
                Data(
                    "<plist><dict><key>Setings</key><dict/><key>Settings</key><dict><key>LogLevel</key><string>i</string></dict></dict></plist>"
                        .utf8))
            try folder.create(
                "envs/Debug.plist",
                Data("<plist><dict><key>Settings</key><dict><key>LogLevel</key><string>d</string></dict></dict></plist>".utf8))
            try folder.create(
                "envs/Release.plist",
                Data("<plist><dict><key>Settings</key><dict><key>LogLevl</key><string>e</string></dict></dict></plist>".utf8))
            let envs = folder.path("envs")
            let result = try AdhocBuildBinary.run(["env", "check", "--environments", envs])
            #expect(result.status == 1)
            #expect(
                result.stderrText == """
                    error: \(envs)/Release.plist: at 'Settings:LogLevl': only Release has this key (Debug, Staging do not); did you mean 'Settings:LogLevel'?
                    error: \(envs)/Staging.plist: at 'Setings': unknown key 'Setings'; did you mean 'Settings'?

                    """)
            #expect(result.stdoutText == "3 environments checked: 2 errors, 0 warnings\n")
            let release = try AdhocBuildBinary.run(["env", "check", "Release", "--environments", envs])
            #expect(release.status == 1)
            #expect(release.stdoutText == "1 environment checked: 1 error, 0 warnings\n")
        }
    }

    @Test func versionBumpFromCIAndShowThroughTheCommandLine() throws {
        try withTemporaryFolder { folder in
            let plist = try folder.create(
                "Info.plist",
                Data(
                    "<plist><dict><key>CFBundleVersion</key><string>41</string><key>CFBundleShortVersionString</key><string>1.4</string></dict></plist>"
                        .utf8))
            var environment = ProcessInfo.processInfo.environment
            environment["NO_COLOR"] = "1"
            environment["BUILD_NUMBER"] = "57"
            let bump = try ProcessResult.run(
                AdhocBuildBinary.path, ["version", "bump", "build", "--from-ci", "--plist", plist],
                environment: environment)
            #expect(bump.status == 0)
            #expect(bump.stdoutText == "\(plist): CFBundleVersion: 41 -> 57\nBuild number is now 57.\n")
            let marketing = try AdhocBuildBinary.run(["version", "bump", "marketing", "patch", "--plist", plist])
            #expect(marketing.stdoutText.hasSuffix("Marketing version is now 1.4.1.\n"))
            let show = try AdhocBuildBinary.run(["version", "show", "--plist", plist, "--json"])
            #expect(show.stdoutText.contains("\"marketingVersion\": \"1.4.1\""))
            #expect(show.stdoutText.contains("\"buildNumber\": \"57\""))
            let backwards = try AdhocBuildBinary.run(["version", "bump", "build", "--to", "3", "--plist", plist])
            #expect(backwards.status == 1)
            #expect(
                backwards.stderrText
                    == "error: \(plist): CFBundleVersion: the build number would go backwards from 57 to 3; "
                    + "pass --allow-decrease if that is intended\n")
            let noPart = try AdhocBuildBinary.run(["version", "bump", "marketing", "--plist", plist])
            #expect(noPart.status == 2)
        }
    }
}
