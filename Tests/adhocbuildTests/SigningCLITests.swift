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

    /// The demo identity (scripts/make-demo-identity.sh) in `folder/signing`, with profiles for `appID`
    /// and `appID.share`, its p12 protected by `password`.
    func makeIdentity(_ folder: TemporaryFolder, appID: String, password: String) throws -> String {
        let signing = folder.path("signing")
        let made = try ProcessResult.run(
            "/bin/bash", [Self.root + "/scripts/make-demo-identity.sh", signing, appID],
            environment: ProcessInfo.processInfo.environment.merging(["ADHOCBUILD_DEMO_PASSWORD": password]) { $1 })
        guard made.status == 0 else { throw SetupFailure("make-demo-identity.sh failed: \(made.stderrText)") }
        return signing
    }

    @Test func releaseResignsWhatItChangesExplainsTheSigningSettingsAndNeverPrintsThePassword() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let signing = try makeIdentity(folder, appID: "com.example.shoutout.staging", password: "hunter2-secret")
            let result = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", app, "--environments", Self.root + "/environments",
                    "--base-url", "https://builds.example.com/shoutout/", "--out", folder.path("dist"), "--ci", "github", "--explain",
                    "--sign-identity", signing + "/demo.p12", "--sign-profile", signing + "/ShoutOut.mobileprovision", "--sign-profile",
                    "com.example.shoutout.staging.share=" + signing + "/ShoutOutShare.mobileprovision"
                ], in: folder.url.path,
                extraEnvironment: ["ADHOCBUILD_SIGN_PASSWORD": "hunter2-secret", "GITHUB_OUTPUT": folder.path("github-output")])
            #expect(result.status == 0, "\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("  SignIdentity ") && $0.hasSuffix("from --sign-identity") })
            #expect(
                lines.contains {
                    $0.hasPrefix("  SignPassword ") && $0.contains("environment variable ADHOCBUILD_SIGN_PASSWORD")
                        && $0.hasSuffix("from $ADHOCBUILD_SIGN_PASSWORD")
                })
            #expect(lines.contains { $0.hasPrefix("  SignProfile[com.example.shoutout.staging.share] ") })
            #expect(lines.contains("==> Sign as \"Apple Development: Demo Signer (DEMO123456)\""))
            #expect(lines.contains { $0.hasPrefix("Signed by Apple Development: Demo Signer (DEMO123456), team DEMO123456; cdhash ") })
            #expect(!(result.stdoutText + result.stderrText).contains("hunter2-secret"))
            // The release applied Staging to the copy it packaged: the extension moved with the app's id,
            // and every bundle was signed again, so the published ipa's seal holds.
            let ipa = folder.path("dist/Staging/1.4.0-41/ShoutOut.ipa")
            let share = try ProcessResult.run("/usr/bin/unzip", ["-p", ipa, "Payload/ShoutOut.app/PlugIns/Share.appex/Info.plist"])
            #expect(share.stdoutText.contains("<string>com.example.shoutout.staging.share</string>"))
            let verify = try AdhocBuildBinary.run(["codesign", "verify", ipa], in: folder.url.path)
            #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderrText)")
            #expect(verify.stdoutText.contains("Share.appex: signed, identifier com.example.shoutout.staging.share, team DEMO123456"))
            // What was published is recorded: build.json and the CI's values name the signer, team and cdhash.
            let info = try String(contentsOfFile: folder.path("dist/Staging/1.4.0-41/build.json"), encoding: .utf8)
            #expect(info.contains("\"signer\" : \"Apple Development: Demo Signer (DEMO123456)\""))
            #expect(info.contains("\"team\" : \"DEMO123456\""))
            let cdhash = try #require(lines.first { $0.hasPrefix("Signed by ") }?.split(separator: " ").last.map(String.init))
            #expect(info.contains("\"cdhash\" : \"\(cdhash)\""))
            let outputs = try String(contentsOfFile: folder.path("github-output"), encoding: .utf8)
            #expect(outputs.contains("cdhash=\(cdhash)") || outputs.contains("CDHASH=\(cdhash)"), "\(outputs)")
        }
    }

    /// `--require-devices` with re-signing checks the profiles the signer will embed (the extension's
    /// own given one too) before the build is copied: a listed device one of them lacks stops the release
    /// with DIST not even made; listed in every profile, the release goes on.
    @Test func requireDevicesWhenResigningChecksTheProfilesToEmbedBeforeCopying() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let signing = try makeIdentity(folder, appID: "com.example.shoutout.staging", password: "pw")
            for (udid, name) in [("00008030-001122334455667A", "Ana's iPhone"), ("00008030-0000DEADBEEF0001", "Bo's iPhone")] {
                let added = try AdhocBuildBinary.run(
                    ["devices", "add", "devices.plist", "--udid", udid, "--name", name], in: folder.url.path)
                try #require(added.status == 0, "\(added.stderrText)")
            }
            let release = {
                try AdhocBuildBinary.run(
                    [
                        "release", "--env", "Staging", "--app", app, "--environments", Self.root + "/environments", "--base-url",
                        "https://builds.example.com/shoutout/", "--out", folder.path("dist"), "--ci", "none", "-q", "--devices",
                        "devices.plist", "--require-devices", "--sign-identity", signing + "/demo.p12", "--sign-profile",
                        signing + "/ShoutOut.mobileprovision", "--sign-profile",
                        "com.example.shoutout.staging.share=" + signing + "/ShoutOutShare.mobileprovision"
                    ], in: folder.url.path, extraEnvironment: ["ADHOCBUILD_SIGN_PASSWORD": "pw"])
            }
            let refused = try release()
            #expect(refused.status == 1)
            let lines = refused.stderrText.split(separator: "\n").map(String.init)
            #expect(lines.count == 1, "\(refused.stderrText)")
            #expect(lines.first?.hasPrefix("error: Check the device list failed: device 'Bo's iPhone' (00008030-0000DEADBEEF0001)") == true)
            // The app's profile and the extension's: each lacks the device, each is named.
            #expect(refused.stderrText.contains("profile 'ShoutOut Demo Development' of ShoutOut.app"), "\(refused.stderrText)")
            #expect(refused.stderrText.contains("profile 'ShoutOut Share Demo Development' of ShoutOut.app/PlugIns/Share.appex"))
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
            let removed = try AdhocBuildBinary.run(["devices", "remove", "devices.plist", "00008030-0000DEADBEEF0001"], in: folder.url.path)
            try #require(removed.status == 0)
            let released = try release()
            #expect(released.status == 0, "\(released.stderrText)")
        }
    }

    @Test func envApplyAndVersionBumpResignTheAppAllOrNothing() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let signing = try makeIdentity(folder, appID: "com.example.shoutout.staging", password: "pw")
            let sign = [
                "--sign-identity", signing + "/demo.p12", "--sign-password-env", "P12", "--sign-profile",
                signing + "/ShoutOut.mobileprovision",
                "--sign-profile", "com.example.shoutout.staging.share=" + signing + "/ShoutOutShare.mobileprovision"
            ]
            let environment = ["P12": "pw"]
            // A profile for other ids: every bundle is checked before anything is written, and the app stays as it was.
            let before = folder.snapshot()
            let wrong = try AdhocBuildBinary.run(
                ["version", "bump", "build", app] + sign, in: folder.url.path, extraEnvironment: environment)
            #expect(wrong.status == 1)
            #expect(wrong.stderrText.contains("does not list the certificate Apple Development: Demo Signer"), "\(wrong.stderrText)")
            #expect(folder.snapshot() == before)
            let applied = try AdhocBuildBinary.run(
                ["env", "apply", "Staging", "--app", app, "--environments", Self.root + "/environments"] + sign, in: folder.url.path,
                extraEnvironment: environment)
            #expect(applied.status == 0, "\(applied.stderrText)")
            #expect(applied.stdoutText.contains("CFBundleIdentifier: \"com.example.shoutout\" -> \"com.example.shoutout.staging\""))
            #expect(applied.stdoutText.contains("signed ShoutOut.app/PlugIns/Share.appex (com.example.shoutout.staging.share, cdhash "))
            #expect(applied.stdoutText.contains("signed by \"Apple Development: Demo Signer (DEMO123456)\", team DEMO123456"))
            #expect(applied.stderrText.isEmpty, "\(applied.stderrText)")
            let bumped = try AdhocBuildBinary.run(
                ["version", "bump", "build", app] + sign, in: folder.url.path, extraEnvironment: environment)
            #expect(bumped.status == 0, "\(bumped.stderrText)")
            let verify = try AdhocBuildBinary.run(["codesign", "verify", app], in: folder.url.path)
            #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderrText)")
            #expect(verify.stdoutText.contains("seal valid (3 code items)"))
            #expect(!FileManager.default.fileExists(atPath: app + "/../.adhocbuild-tmp-ShoutOut.app"))
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
