import Foundation
import TestSupport
import Testing

/// The `--sign-…` options of `release`, `env apply` and `version bump` on the command line: resolved
/// and checked before anything changes, the password never on argv nor printed.
@Suite struct SigningCLITests {
    static var root: String { Fixtures.packageRoot.path }

    /// A copy of the example app with a share extension (XML Info.plist), an identity and a password file.
    func makeApp(_ folder: TemporaryFolder) throws -> String {
        try FileManager.default.copyItem(atPath: Self.root + "/examples/ShoutOut/ShoutOut.app", toPath: folder.path("ShoutOut.app"))
        let share = "ShoutOut.app/PlugIns/Share.appex/"
        try folder.create(
            share + "Info.plist",
            Data(
                """
                <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.shoutout.share</string>
                <key>CFBundleExecutable</key><string>Share</string><key>CFBundleVersion</key><string>41</string>
                <key>CFBundleShortVersionString</key><string>1.4.0</string></dict></plist>
                """.utf8))
        try FileManager.default.copyItem(atPath: folder.path("ShoutOut.app/ShoutOut"), toPath: folder.path(share + "Share"))
        try FileManager.default.copyItem(
            atPath: try ReleaseCLITests().profile(folder), toPath: folder.path(share + "embedded.mobileprovision"))
        _ = try folder.write("id.p12", "x")
        _ = try folder.write("pw.txt", "x")
        return folder.path("ShoutOut.app")
    }

    @Test func releaseExplainsTheSigningSettingsAndNeverPrintsThePassword() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let profile = folder.path("example.mobileprovision")
            let result = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", app, "--environments", Self.root + "/environments",
                    "--base-url", "https://builds.example.com/shoutout/", "--out", folder.path("dist"), "--profile", profile,
                    "--ci", "none", "--explain", "--sign-identity", folder.path("id.p12"), "--sign-profile",
                    "com.example.shoutout.staging.share=" + profile, "--allow-broken-signature"
                ], in: folder.url.path, extraEnvironment: ["ADHOCBUILD_SIGN_PASSWORD": "hunter2-secret"])
            #expect(result.status == 0, "\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("  SignIdentity ") && $0.hasSuffix("from --sign-identity") })
            #expect(
                lines.contains {
                    $0.hasPrefix("  SignPassword ") && $0.contains("environment variable ADHOCBUILD_SIGN_PASSWORD")
                        && $0.hasSuffix("from $ADHOCBUILD_SIGN_PASSWORD")
                })
            #expect(lines.contains { $0.hasPrefix("  SignProfile[com.example.shoutout.staging.share] ") })
            #expect(!(result.stdoutText + result.stderrText).contains("hunter2-secret"))
            // The release applied Staging to the copy it packaged: the extension moved with the app's id.
            let ipa = folder.path("dist/Staging/1.4.0-41/ShoutOut.ipa")
            let share = try ProcessResult.run("/usr/bin/unzip", ["-p", ipa, "Payload/ShoutOut.app/PlugIns/Share.appex/Info.plist"])
            #expect(share.stdoutText.contains("<string>com.example.shoutout.staging.share</string>"))
        }
    }

    @Test func twoPasswordSourcesAreAUsageErrorAndNothingIsWritten() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let before = folder.snapshot()
            let result = try AdhocBuildBinary.run(
                [
                    "env", "apply", "Staging", "--app", app, "--environments", Self.root + "/environments", "--sign-identity",
                    folder.path("id.p12"), "--sign-password-env", "P12_PASSWORD", "--sign-password-file", folder.path("pw.txt")
                ], in: folder.url.path)
            #expect(result.status == 2)
            #expect(result.stderrText.hasPrefix("error: give --sign-password-env VAR or --sign-password-file FILE, not both"))
            #expect(folder.snapshot() == before)
        }
    }

    @Test func versionBumpWithAnIdentityButNoPasswordSourceIsAUsageError() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let result = try AdhocBuildBinary.run(
                ["version", "bump", "build", app, "--sign-identity", folder.path("id.p12")], in: folder.url.path)
            #expect(result.status == 2)
            #expect(result.stderrText.hasPrefix("error: the signing identity needs a password source"))
        }
    }

    @Test func aMissingProfileNamesItsFileAndSigningASourceTreeIsAUsageError() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let missing = try AdhocBuildBinary.run(
                [
                    "env", "apply", "Staging", "--app", app, "--environments", Self.root + "/environments", "--sign-identity",
                    folder.path("id.p12"), "--sign-password-file", folder.path("pw.txt"), "--sign-profile",
                    folder.path("nope.mobileprovision")
                ], in: folder.url.path)
            #expect(missing.status == 1)
            #expect(
                missing.stderrText.hasPrefix(
                    "error: \(folder.path("nope.mobileprovision")): no such provisioning profile (from --sign-profile)"))
            let project = try AdhocBuildBinary.run(
                [
                    "env", "apply", "Staging", "--project", folder.url.path, "--environments", Self.root + "/environments",
                    "--sign-identity", folder.path("id.p12")
                ], in: folder.url.path)
            #expect(project.status == 2)
            #expect(project.stderrText.hasPrefix("error: --sign-identity and the other signing options re-sign a built app"))
        }
    }

    @Test func thereIsNoOptionThatTakesThePasswordItself() throws {
        let result = try AdhocBuildBinary.run(["env", "apply", "Staging", "--app", "A.app", "--sign-password", "secret"])
        #expect(result.status == 2)
        #expect(!result.stdoutText.contains("secret"))
    }
}
