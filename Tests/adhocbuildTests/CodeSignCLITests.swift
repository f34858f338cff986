import Foundation
import TestSupport
import Testing

/// `codesign verify` as a CI step runs it: exit codes, one line per problem, JSON.
@Suite struct CodeSignCLITests {
    @Test(Fixtures.enabled) func aFixtureIpaVerifies() throws {
        let ipa = Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path
        let result = try AdhocBuildBinary.run(["codesign", "verify", ipa])
        #expect(result.status == 0, "\(result.stderrText)")
        // Signatures are judged at their signing time; that the profile and certificate have expired since
        // is an install problem, on 'install:' lines, and the seal holds (exit 0).
        let warnings = result.stderrText.split(separator: "\n").map(String.init)
        #expect(
            warnings.allSatisfy { $0.hasPrefix("warning: \(ipa): install: Payload/Demo.app") && $0.contains(" expired on ") }, "\(warnings)"
        )
        #expect(
            warnings.contains(
                "warning: \(ipa): install: Payload/Demo.app: embedded.mobileprovision expired on 2022-01-15; iOS will not install the build with it"
            ))
        #expect(warnings.count == 4)
        #expect(
            result.stdoutText == """
                Payload/Demo.app/PlugIns/Notification.appex: signed, identifier com.icyleaf.test.Demo.Notification, team 72LA85G59H, \
                cdhash e47d36116d7c441f9d49d5bae8ce9c2319740d03, sha256, CodeDirectory 0x20400, 1 sealed file: seal valid
                Payload/Demo.app: signed, identifier com.icyleaf.test.Demo, team 72LA85G59H, cdhash c53eb946d413d3f2da67d683b48486156d1ac17a, \
                sha256, CodeDirectory 0x20400, 11 sealed files: seal valid
                \(ipa): seal valid (2 code items); iOS would refuse to install it (4 install problems)

                """)
        let json = try AdhocBuildBinary.run(["codesign", "verify", ipa, "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(object["valid"] as? Bool == true)
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.map { $0["status"] as? String } == ["signed", "signed"])
        #expect(items.last?["cdhash"] as? String == "c53eb946d413d3f2da67d683b48486156d1ac17a")
        #expect((items.last?["entitlements"] as? [String: Any])?["get-task-allow"] as? Bool == false)
        // Both verdicts, for the whole app and for each code item.
        #expect(object["installable"] as? Bool == false)
        #expect((object["installProblems"] as? [String])?.count == 4)
        #expect(items.map { $0["sealValid"] as? Bool } == [true, true])
        #expect(items.map { ($0["installProblems"] as? [String])?.count } == [2, 2])
    }

    @Test(Fixtures.enabled) func aBrokenSealExitsOneWithALinePerProblem() throws {
        try withTemporaryFolder { folder in
            let unpacked = folder.path("u")
            let unzip = try ProcessResult.run(
                "/usr/bin/env",
                [
                    "python3", "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
                    Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, unpacked
                ])
            #expect(unzip.status == 0)
            let app = unpacked + "/Payload/Test.app"
            try FileManager.default.removeItem(atPath: app + "/Assets.car")
            try Data("x".utf8).write(to: URL(fileURLWithPath: app + "/extra"))
            let result = try AdhocBuildBinary.run(["codesign", "verify", app])
            #expect(result.status == 1)
            let errors = result.stderrText.split(separator: "\n").filter { $0.hasPrefix("error: ") }
            #expect(errors == ["error: \(app): Test.app: Assets.car: missing", "error: \(app): Test.app: extra: added, not sealed"])
            #expect(result.stdoutText.contains("\(app): seal broken (2 problems in 1 of 1 code items)"))
            #expect(!result.stdoutText.contains(folder.path("")) || result.stdoutText.contains(app))
            let json = try AdhocBuildBinary.run(["codesign", "verify", app, "--json"])
            #expect(json.status == 1)
            #expect(json.stdoutText.contains("\"valid\": false"))
        }
    }

    /// `--anchor apple` also checks both chains against the pinned Apple Root CA: an Apple-signed fixture
    /// passes, the fixture its publisher re-signed with a self-signed certificate gets an install line
    /// for each chain; its seal is intact, so the exit status is 0 (`verify` makes them errors).
    @Test(Fixtures.enabled) func anchorAppleAcceptsAppleSignaturesAndRefusesASelfSignedOne() throws {
        let apple = try AdhocBuildBinary.run([
            "codesign", "verify", Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, "--anchor", "apple"
        ])
        #expect(apple.status == 0, "\(apple.stderrText)")
        let fastlane = Fixtures.url("ipa", "fastlane_very-capable-app_dev-xcode9.ipa").path
        #expect(try AdhocBuildBinary.run(["codesign", "verify", fastlane]).status == 0)
        let selfSigned = try AdhocBuildBinary.run(["codesign", "verify", fastlane, "--anchor", "apple"])
        #expect(selfSigned.status == 0)
        #expect(selfSigned.stdoutText.contains("seal valid"))
        let lines = selfSigned.stderrText.split(separator: "\n").map(String.init).filter { $0.contains(": anchor apple: ") }
        #expect(lines.count == 2, "\(lines)")
        #expect(
            lines.allSatisfy {
                $0.hasPrefix("warning: \(fastlane): install: Payload/very-capable-app.app: anchor apple: ") && $0.contains("Apple Root CA")
            })
        #expect(lines.contains { $0.contains("embedded.mobileprovision") })
        #expect(try AdhocBuildBinary.run(["codesign", "verify", fastlane, "--anchor", "google"]).status == 2)
    }

    @Test func unreadableInputAndUsageErrors() throws {
        try withTemporaryFolder { folder in
            let missing = try AdhocBuildBinary.run(["codesign", "verify", folder.path("Nope.ipa")])
            #expect(missing.status == 1)
            #expect(missing.stderrText == "error: \(folder.path("Nope.ipa")): no such file\n")
            let notZip = try folder.write("Bad.ipa", "not a zip")
            let bad = try AdhocBuildBinary.run(["codesign", "verify", notZip])
            #expect(bad.status == 1)
            #expect(bad.stderrText.split(separator: "\n").count == 1 && bad.stderrText.hasPrefix("error: \(notZip)"))
            let usage = try AdhocBuildBinary.run(["codesign", "verify"])
            #expect(usage.status == 2)
            let extra = try AdhocBuildBinary.run(["codesign", "verify", "a", "b"])
            #expect(extra.status == 2)
        }
    }

    @Test func theUnsignedExampleAppFails() throws {
        let app = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path
        let result = try AdhocBuildBinary.run(["codesign", "verify", app])
        #expect(result.status == 1)
        #expect(result.stderrText.contains("\(app): ShoutOut.app: ShoutOut: code object is not signed at all\n"))
        #expect(result.stdoutText.contains("ShoutOut.app: unsigned, 0 sealed files: seal broken\n"))
    }

    /// The Apple-signed fixture's Test.app, unzipped with Python's zipfile.
    static func signedApp(_ folder: TemporaryFolder) throws -> String {
        let unpacked = folder.path("u")
        let unzip = try ProcessResult.run(
            "/usr/bin/env",
            [
                "python3", "-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
                Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, unpacked
            ])
        try #require(unzip.status == 0)
        return unpacked + "/Payload/Test.app"
    }

    /// The pre-publish `verify` includes the seal: a broken one is an error, where it said "ready to publish".
    @Test(Fixtures.enabled) func verifyReportsABrokenSealAsAnError() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: app + "/Test")
            let intact = try AdhocBuildBinary.run(["verify", app, "--at", "2021-06-01"])
            #expect(intact.stdoutText == "\(app): ready to publish (0 errors, 0 warnings)\n", "\(intact.stderrText)")
            try Data("x".utf8).write(to: URL(fileURLWithPath: app + "/extra"))
            let broken = try AdhocBuildBinary.run(["verify", app, "--at", "2021-06-01"])
            #expect(broken.status == 1)
            #expect(broken.stderrText.contains("error: \(app): Test.app: signature: extra: added, not sealed\n"), "\(broken.stderrText)")
            #expect(broken.stdoutText == "\(app): not ready (1 error, 0 warnings)\n")
        }
    }

    /// The unsigned example app: `verify` warns that it is unsigned, it does not call it broken.
    @Test func verifyWarnsThatAnUnsignedAppIsUnsigned() throws {
        let app = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path
        let result = try AdhocBuildBinary.run(["verify", app])
        #expect(result.stderrText.contains("warning: \(app): ShoutOut.app: is unsigned; iOS will not install it until it is signed\n"))
        #expect(!result.stderrText.contains("signature:"))
    }

    /// `env apply` and `version bump` on a signed app are refused (exit 1, nothing written) unless
    /// --allow-broken-signature, which applies and warns.
    @Test(Fixtures.enabled) func changingASignedAppIsRefusedUnlessAllowed() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            let environments = Fixtures.packageRoot.appendingPathComponent("environments").path
            let before = try Data(contentsOf: URL(fileURLWithPath: app + "/Info.plist"))
            let refused = try AdhocBuildBinary.run(["env", "apply", "Staging", "--environments", environments, "--app", app])
            #expect(refused.status == 1)
            #expect(
                refused.stderrText.contains(
                    "error: \(app): applying Staging changes Info.plist and adds environment.plist, which the signature of Test.app seals; "
                        + "iOS will refuse to install it"), "\(refused.stderrText)")
            #expect(refused.stderrText.contains("--allow-broken-signature"))
            let bump = try AdhocBuildBinary.run(["version", "bump", "build", app, "--to", "9"])
            #expect(bump.status == 1)
            #expect(bump.stderrText.contains("setting the build number to 9 changes Info.plist, which the signature of Test.app seals"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: app + "/Info.plist")) == before)
            let allowed = try AdhocBuildBinary.run([
                "env", "apply", "Staging", "--environments", environments, "--app", app, "--allow-broken-signature"
            ])
            #expect(allowed.status == 0)
            #expect(allowed.stderrText.contains("warning: \(app): applying Staging changes Info.plist"))
        }
    }

    /// `release` of the signed app with an environment: exit 1, the message, nothing published; the
    /// failure also reaches TeamCity as a build problem.
    @Test(Fixtures.enabled) func releaseRefusesToBreakASignature() throws {
        try withTemporaryFolder { folder in
            let app = try Self.signedApp(folder)
            let environments = Fixtures.packageRoot.appendingPathComponent("environments").path
            let result = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", app, "--environments", environments, "--base-url", "https://b.example/",
                    "--out", folder.path("dist"), "--ci", "teamcity", "--allow-expired"
                ], in: folder.path(""))
            #expect(result.status == 1)
            #expect(
                result.stderrText.contains("which the signature of Test.app seals; iOS will refuse to install it"), "\(result.stderrText)")
            #expect(!result.stderrText.contains(".adhocbuild-tmp"))
            #expect(result.stdoutText.contains("##teamcity[buildProblem description='Apply environment Staging failed:"))
            #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path("dist"))) ?? [] == [])
        }
    }
}
