import Foundation
import TestSupport
import Testing

/// `$(NAME)` on the command line: the process environment is read only for the CI's variables and
/// those given with `--allow-env`, a secret never, and a refusal is one line that says what to do.
@Suite struct ProcessEnvironmentCLITests {
    static var root: String { Fixtures.packageRoot.path }
    static let password = "hunter2-p12-secret"

    /// A copy of the bundled environments in `folder/envs`, with `value` at `keyPath` of Staging.
    func environments(_ folder: TemporaryFolder, _ keyPath: String, _ value: String) throws -> String {
        let envs = folder.path("envs")
        try FileManager.default.copyItem(atPath: Self.root + "/environments", toPath: envs)
        let set = try AdhocBuildBinary.run(["plist", "set", envs + "/Staging.plist", keyPath, value])
        try #require(set.status == 0, "\(set.stderrText)")
        return envs
    }

    @Test func aSigningPasswordInTheTitleIsRefusedInOneLineEvenWhenSetAndAllowed() throws {
        try withTemporaryFolder { folder in
            let envs = try environments(folder, "Distribution:Title", "ShoutOut $(ADHOCBUILD_SIGN_PASSWORD)")
            let result = try AdhocBuildBinary.run(
                ["env", "show", "Staging", "--environments", envs, "--allow-env", "ADHOCBUILD_SIGN_PASSWORD"],
                extraEnvironment: ["ADHOCBUILD_SIGN_PASSWORD": Self.password])
            #expect(result.status == 1)
            #expect(result.stdoutText == "")
            #expect(
                result.stderrText
                    == "error: \(envs)/Staging.plist: at 'Distribution:Title': $(ADHOCBUILD_SIGN_PASSWORD) is never expanded from the "
                    + "process environment: adhocbuild reads it for signing, and --allow-env cannot allow it (define it in Variables, "
                    + "or give it with --setting ADHOCBUILD_SIGN_PASSWORD=VALUE)\n")
        }
    }

    @Test func anAWSSecretInSettingsIsRefusedByEveryEnvCommand() throws {
        try withTemporaryFolder { folder in
            let envs = try environments(folder, "Settings:Upload", "$(AWS_SECRET_ACCESS_KEY)")
            for arguments in [["env", "show", "Staging"], ["env", "check", "Staging"], ["env", "diff", "Debug", "Staging"]] {
                let result = try AdhocBuildBinary.run(
                    arguments + ["--environments", envs], extraEnvironment: ["AWS_SECRET_ACCESS_KEY": Self.password])
                #expect(result.status == 1, "\(arguments)")
                let errors = result.stderrText.split(separator: "\n").filter { $0.hasPrefix("error: ") }
                #expect(
                    errors == [
                        "error: \(envs)/Staging.plist: at 'Settings:Upload': $(AWS_SECRET_ACCESS_KEY) is never expanded from the process "
                            + "environment: its name contains SECRET, and --allow-env cannot allow it (define it in Variables, or give it "
                            + "with --setting AWS_SECRET_ACCESS_KEY=VALUE)"
                    ], "\(arguments): \(result.stderrText)")
                #expect(!(result.stdoutText + result.stderrText).contains(Self.password))
            }
        }
    }

    @Test func ciVariablesExpandAndOthersOnlyWithAllowEnv() throws {
        try withTemporaryFolder { folder in
            let envs = try environments(folder, "Settings:Deploy", "$(GITHUB_SHA)@$(DEPLOY_HOST)")
            let environment = ["GITHUB_SHA": "0123abc", "DEPLOY_HOST": "deploy.example.com"]
            let refused = try AdhocBuildBinary.run(["env", "show", "Staging", "--environments", envs], extraEnvironment: environment)
            #expect(refused.status == 1)
            #expect(
                refused.stderrText
                    == "error: \(envs)/Staging.plist: at 'Settings:Deploy': $(DEPLOY_HOST) is not allowed from the process environment "
                    + "(allow it with --allow-env DEPLOY_HOST, define it in Variables, or give it with --setting DEPLOY_HOST=VALUE)\n")
            let allowed = try AdhocBuildBinary.run(
                ["env", "show", "Staging", "--environments", envs, "--allow-env", "DEPLOY_HOST", "--explain"],
                extraEnvironment: environment)
            #expect(allowed.status == 0, "\(allowed.stderrText)")
            #expect(allowed.stdoutText.contains("Settings:Deploy = \"0123abc@deploy.example.com\""), "\(allowed.stdoutText)")
        }
    }

    /// `env apply --app` never expands the variable it reads the signing password from, whether
    /// `--sign-password-env` or `SignPasswordEnv` in adhocbuild.plist names it; the app is left as it was.
    @Test func envApplyNeverExpandsThePasswordVariableItSignsWith() throws {
        try withTemporaryFolder { folder in
            let envs = try environments(folder, "Settings:Build", "$(MY_P12)")
            _ = try folder.write("id.p12", "x")
            try FileManager.default.copyItem(atPath: Self.root + "/examples/ShoutOut/ShoutOut.app", toPath: folder.path("ShoutOut.app"))
            let apply = ["env", "apply", "Staging", "--app", "ShoutOut.app", "--environments", envs]
            let before = folder.snapshot()
            let fromFlag = try AdhocBuildBinary.run(
                apply + ["--sign-identity", "id.p12", "--sign-password-env", "MY_P12"], in: folder.url.path,
                extraEnvironment: ["MY_P12": Self.password])
            _ = try folder.write(
                "adhocbuild.plist",
                "<plist><dict><key>SignIdentity</key><string>id.p12</string><key>SignPasswordEnv</key><string>MY_P12</string></dict></plist>"
            )
            let fromProject = try AdhocBuildBinary.run(apply, in: folder.url.path, extraEnvironment: ["MY_P12": Self.password])
            for result in [fromFlag, fromProject] {
                #expect(result.status == 1)
                #expect(
                    result.stderrText
                        == "error: \(envs)/Staging.plist: at 'Settings:Build': $(MY_P12) is never expanded from the process environment: "
                        + "adhocbuild reads it for signing, and --allow-env cannot allow it (define it in Variables, or give it with "
                        + "--setting MY_P12=VALUE)\n")
                #expect(!(result.stdoutText + result.stderrText).contains(Self.password))
            }
            #expect(folder.snapshot().filter { $0.key != "adhocbuild.plist" } == before)
        }
    }

    /// The variable `--sign-password-env` names is a secret whatever its name; the release stops before
    /// anything is published and the password is printed nowhere.
    @Test func releaseNeverPublishesThePasswordVariableSigningReads() throws {
        try withTemporaryFolder { folder in
            let envs = try environments(folder, "Distribution:Subtitle", "built with $(MY_P12)")
            _ = try folder.write("id.p12", "x")
            let result = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", Self.root + "/examples/ShoutOut/ShoutOut.app", "--environments", envs,
                    "--base-url", "https://builds.example.com/", "--out", folder.path("dist"), "--ci", "none",
                    "--profile", try ReleaseCLITests().profile(folder), "--sign-identity", folder.path("id.p12"),
                    "--sign-password-env", "MY_P12", "--allow-env", "MY_P12"
                ], extraEnvironment: ["MY_P12": Self.password])
            #expect(result.status == 1)
            #expect(
                result.stderrText.contains(
                    "Staging.plist: at 'Distribution:Subtitle': $(MY_P12) is never expanded from the process environment: "
                        + "adhocbuild reads it for signing"), "\(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
            #expect(!(result.stdoutText + result.stderrText).contains(Self.password))
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist/Staging")))
        }
    }
}
