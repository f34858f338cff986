import Foundation
import TestSupport
import Testing

/// `codesign sign` as a user runs it: the password from the environment or a file, never echoed; a
/// refusal is one line on standard error and writes nothing; what it signs, `codesign verify` accepts.
@Suite struct CodeSignSignCLITests {
    static let appex = "app_info_embedded_enterprise-appex.ipa"
    static let extensionID = "com.icyleaf.test.Demo.Notification"

    /// The test identities and a profile for `ABCDE12345.*` listing the RSA certificate.
    static func setUp(_ folder: TemporaryFolder) throws -> (made: TestIdentities, profile: String) {
        let made = try TestIdentities.make(in: folder)
        try made.run("x509", "-in", "rsa.crt", "-outform", "DER", "-out", "rsa.der")
        let der = try Data(contentsOf: URL(fileURLWithPath: folder.path("rsa.der")))
        return (made, try TestProfile(certificates: [Array(der)]).write("test.mobileprovision", with: made))
    }

    static func temporaries(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".adhocbuild-tmp-") }
    }

    /// Signing replaces what is at the output, so only the input itself or a signed build of the same
    /// kind may be there: `-o dist` swapped all of dist for the app (the input too, when it was inside
    /// dist), an output inside the input copied the app into itself, and `-o .` crashed.
    @Test func anOutputThatIsAFolderOfOtherThingsOrHoldsTheInputIsRefused() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try Self.setUp(folder)
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path, toPath: app)
            try folder.create("dist/Staging/notes.txt", Data("important".utf8))
            let before = folder.snapshot()
            let sign = ["codesign", "sign", app, "--identity", made.rsa, "--password-file", made.passwordFile, "--profile", profile, "-o"]
            for (output, problem) in [
                (
                    folder.path("dist"),
                    "is a folder that is not a signed build to replace; name the signed .app's own path (like dist/ShoutOut.app)"
                ),
                (".", "holds the input \(app), which replacing it would delete; name the signed build's own path"),
                (app + "/signed.ipa", "is inside the input \(app); write the signed build somewhere else"),
                (app + "/new/Signed.app", "is inside the input \(app); write the signed build somewhere else"),
                ("Signed", "is not named like the signed build: a bundle's folder ends in .app (like dist/ShoutOut.app)")
            ] {
                let result = try AdhocBuildBinary.run(sign + [output], in: folder.url.path)
                #expect(result.status == 1)
                #expect(result.stderrText == "error: \(output): \(problem)\n")
                #expect(folder.snapshot() == before)
            }
            let fresh = try AdhocBuildBinary.run(sign + ["d/x.ipa"], in: folder.url.path)
            #expect(fresh.status == 0, "\(fresh.stderrText)")
            #expect(FileManager.default.fileExists(atPath: folder.path("d/x.ipa")))
        }
    }

    /// A profile whose team is not the signer's is refused before anything is signed or copied, by
    /// `codesign sign` and by `release`, naming both team ids; it was signed, then called broken.
    @Test func aProfileOfAnotherTeamIsRefusedBeforeSigning() throws {
        try withTemporaryFolder { folder in
            let (made, _) = try Self.setUp(folder)
            let der = try Data(contentsOf: URL(fileURLWithPath: folder.path("rsa.der")))
            var spec = TestProfile(certificates: [Array(der)])
            (spec.team, spec.applicationIdentifier) = ("ZZZZZ99999", "ZZZZZ99999.*")
            let other = try spec.write("other.mobileprovision", with: made)
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(
                atPath: Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path, toPath: app)
            let before = folder.snapshot()
            let problem =
                "\(other): the profile \"Test Development\" (0E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071) is for team ZZZZZ99999 "
                + "(its TeamIdentifier), but the certificate Apple Development: Test RSA (ABCDE12345) is of team ABCDE12345"
            let sign = try AdhocBuildBinary.run([
                "codesign", "sign", app, "--identity", made.rsa, "--password-file", made.passwordFile, "--profile", other,
                "-o", folder.path("out/ShoutOut.app")
            ])
            #expect(sign.status == 1)
            #expect(sign.stderrText.hasPrefix("error: \(problem) (iOS refuses an app whose profile"), "\(sign.stderrText)")
            #expect(folder.snapshot() == before)
            let release = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", app, "--environments", Fixtures.packageRoot.path + "/environments",
                    "--base-url", "https://builds.example.com/", "--out", folder.path("dist"), "--ci", "none",
                    "--sign-identity", made.rsa, "--sign-password-file", made.passwordFile, "--sign-profile", other
                ], in: folder.url.path)
            #expect(release.status == 1)
            #expect(release.stderrText.hasPrefix("error: Load the signing identity failed: \(problem)"), "\(release.stderrText)")
            #expect(!release.stdoutText.contains("==> Copy the build"))
            #expect(folder.snapshot() == before)
        }
    }

    /// A release that re-signs a build shows when it was made, its original signing time, not the time
    /// it was re-signed or published (the page said "Built" at the publishing time).
    @Test(Fixtures.enabled) func aReleaseShowsTheOriginalSigningTimeAsTheBuildTime() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try Self.setUp(folder)
            try folder.create("envs/Staging.plist", Data("<plist><dict/></plist>".utf8))
            let result = try AdhocBuildBinary.run([
                "release", "--env", "Staging", "--app", Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path,
                "--environments", folder.path("envs"), "--base-url", "https://builds.example.com/", "--out", folder.path("dist"),
                "--ci", "none", "-q", "--sign-identity", made.rsa, "--sign-password-file", made.passwordFile, "--sign-profile", profile
            ])
            #expect(result.status == 0, "\(result.stderrText)")
            let json = try Data(contentsOf: URL(fileURLWithPath: folder.path("dist/Staging/latest/build.json")))
            let info = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(info["built"] as? String == "2021-05-09T06:59:43Z")
            #expect((info["published"] as? String ?? "") > "2021-05-10", "\(info)")
            let page = try String(contentsOfFile: folder.path("dist/Staging/latest/index.html"), encoding: .utf8)
            #expect(page.contains("<dt>Built</dt><dd><time datetime=\"2021-05-09T06:59:43Z\">"))
            #expect(page.contains("<dt>Published</dt>"))
        }
    }

    @Test(Fixtures.enabled) func signsAFixtureIpaWithThePasswordFromTheEnvironmentOrAFileAndItVerifies() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try Self.setUp(folder)
            let ipa = Fixtures.url("ipa", Self.appex).path
            let common = [
                "codesign", "sign", ipa, "--identity", made.rsa, "--profile", profile, "--profile", "\(Self.extensionID)=\(profile)"
            ]
            let runs = [
                (
                    try AdhocBuildBinary.run(
                        common + ["--password-env", "P12_PASSWORD", "-o", folder.path("env.ipa")],
                        extraEnvironment: ["P12_PASSWORD": TestIdentities.password]), folder.path("env.ipa")
                ),
                (
                    try AdhocBuildBinary.run(common + ["--password-file", made.passwordFile, "--output", folder.path("file.ipa")]),
                    folder.path("file.ipa")
                )
            ]
            for (result, output) in runs {
                #expect(result.status == 0, "\(result.stderrText)")
                #expect(!result.stdoutText.contains(TestIdentities.password) && !result.stderrText.contains(TestIdentities.password))
                #expect(
                    result.stdoutText.contains("signed Demo.app/PlugIns/Notification.appex (\(Self.extensionID), cdhash "),
                    "\(result.stdoutText)")
                #expect(
                    result.stdoutText.contains(
                        "\(output): signed by \"Apple Development: Test RSA (ABCDE12345)\", team ABCDE12345; cdhash "),
                    "\(result.stdoutText)")
                let verify = try AdhocBuildBinary.run(["codesign", "verify", output])
                #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderrText)")
                #expect(verify.stdoutText.hasSuffix("\(output): seal valid (2 code items)\n"), "\(verify.stdoutText)")
                #expect(verify.stdoutText.contains("Payload/Demo.app: signed, identifier com.icyleaf.test.Demo, team ABCDE12345"))
            }
            #expect(Self.temporaries(in: folder.url.path).isEmpty)
        }
    }

    /// An ipa that holds more than Payload (SwiftSupport, Symbols, iTunesMetadata.plist, as the App
    /// Store and Xcode's exports make them) keeps all of it, byte for byte, when it is re-signed.
    @Test(Fixtures.enabled) func reSigningAnIpaKeepsWhatItHoldsBesidePayload() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try Self.setUp(folder)
            let ipa = folder.path("extras.ipa")
            let oracle = try #require(ProcessResult.which("python3"))
            let build = try ProcessResult.run(
                oracle,
                [
                    "-c",
                    """
                    import sys, zipfile
                    with zipfile.ZipFile(sys.argv[1]) as source, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as out:
                        for item in source.infolist():
                            out.writestr(item, source.read(item))
                        out.writestr("SwiftSupport/iphoneos/libswiftCore.dylib", b"not really a dylib " * 100)
                        out.writestr("Symbols/0F1E2D3C.symbols", bytes(range(256)) * 4)
                        out.writestr("iTunesMetadata.plist", b"<plist version='1.0'><dict/></plist>")
                    """, Fixtures.url("ipa", Self.appex).path, ipa
                ])
            try #require(build.status == 0, "\(build.stderrText)")
            let signed = folder.path("signed.ipa")
            let result = try AdhocBuildBinary.run([
                "codesign", "sign", ipa, "--identity", made.rsa, "--password-file", made.passwordFile, "--profile", profile,
                "--profile", "\(Self.extensionID)=\(profile)", "-o", signed
            ])
            #expect(result.status == 0, "\(result.stderrText)")
            let compare = try ProcessResult.run(
                oracle,
                [
                    "-c",
                    """
                    import sys, zipfile
                    a, b = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2])
                    outside = lambda z: sorted(n for n in z.namelist() if not n.startswith("Payload/") and not n.endswith("/"))
                    print(outside(b))
                    assert outside(a) == outside(b), (outside(a), outside(b))
                    for name in outside(a):
                        assert a.read(name) == b.read(name), name
                    """, ipa, signed
                ])
            #expect(compare.status == 0, "\(compare.stderrText)")
            #expect(
                compare.stdoutText == "['SwiftSupport/iphoneos/libswiftCore.dylib', 'Symbols/0F1E2D3C.symbols', 'iTunesMetadata.plist']\n")
            #expect(try AdhocBuildBinary.run(["codesign", "verify", signed]).status == 0)
        }
    }

    /// `--profile team=dev.mobileprovision` names the app's profile when a file of that name is there,
    /// not a profile for a bundle id `team`.
    @Test(Fixtures.enabled) func aProfileFileWithAnEqualsSignInItsNameIsTheAppsProfile() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try Self.setUp(folder)
            try FileManager.default.copyItem(atPath: profile, toPath: folder.path("team=dev.mobileprovision"))
            let result = try AdhocBuildBinary.run(
                [
                    "codesign", "sign", Fixtures.url("ipa", Self.appex).path, "--identity", made.rsa, "--password-file",
                    made.passwordFile, "--profile", "team=dev.mobileprovision", "--profile", "\(Self.extensionID)=\(profile)",
                    "-o", "signed.ipa"
                ], in: folder.url.path)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stdoutText.contains("profile team=dev.mobileprovision"), "\(result.stdoutText)")
        }
    }

    @Test(Fixtures.enabled) func aWrongPasswordIsOneLineAndWritesNothing() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try Self.setUp(folder)
            let output = folder.path("out.ipa")
            let wrong = "wrong-Pa55-word"
            let result = try AdhocBuildBinary.run(
                [
                    "codesign", "sign", Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path, "--identity", made.rsa,
                    "--password-env",
                    "P12_PASSWORD", "--profile", profile, "-o", output
                ], extraEnvironment: ["P12_PASSWORD": wrong])
            #expect(result.status != 0)
            let lines = result.stderrText.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 1, "\(result.stderrText)")
            #expect(lines.first?.hasPrefix("error: \(made.rsa): ") == true, "\(result.stderrText)")
            #expect(!result.stderrText.contains(wrong) && !result.stdoutText.contains(wrong))
            #expect(!result.stderrText.contains(TestIdentities.password))
            #expect(!FileManager.default.fileExists(atPath: output))
            #expect(Self.temporaries(in: folder.url.path).isEmpty)
        }
    }

    @Test func helpListsEveryOption() throws {
        let result = try AdhocBuildBinary.run(["codesign", "sign", "--help"])
        #expect(result.status == 0, "\(result.stderrText)")
        for option in [
            "--identity", "--password-env", "--password-file", "--profile", "--entitlements", "--chain", "-o, --output", "APP|IPA|XCARCHIVE"
        ] {
            #expect(result.stdoutText.contains(option), "\(option) missing from:\n\(result.stdoutText)")
        }
        #expect(result.stdoutText.contains("The password never goes on the command line"))
    }
}
