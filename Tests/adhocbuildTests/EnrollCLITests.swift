import Foundation
import TestSupport
import Testing

/// `devices key` and `devices enroll-page` as a user runs them: their help, the key file, the folder the
/// page command writes (and a refusal that writes nothing), the signed profile verified by openssl.
@Suite struct EnrollCLITests {
    static let url = "https://builds.example.com/udid/"

    @Test(arguments: [
        (["devices", "--help"], "help-devices"), (["devices", "key", "--help"], "help-devices-key"),
        (["devices", "enroll-page", "--help"], "help-devices-enroll-page")
    ])
    func helpMatchesItsSnapshot(arguments: [String], name: String) throws {
        let result = try AdhocBuildBinary.run(arguments)
        #expect(result.status == 0)
        #expect(result.stderrText == "")
        try CLITests().assertSnapshot(result.stdoutText, name)
    }

    @Test func theKeyIsThirtyTwoPrivateBytesAndIsNeverReplaced() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let made = try AdhocBuildBinary.run(["devices", "key", "-o", "udid.key"], in: folder.url.path)
            #expect(made.status == 0, "\(made.stderrText)")
            #expect(made.stdoutText == "udid.key: enrollment key (32 bytes, mode 0600)\n")
            let key = try Data(contentsOf: URL(fileURLWithPath: folder.path("udid.key")))
            #expect(key.count == 32)
            var info = stat()
            #expect(stat(folder.path("udid.key"), &info) == 0 && info.st_mode & 0o777 == 0o600)
            let again = try AdhocBuildBinary.run(["devices", "key", "-o", "udid.key"], in: folder.url.path)
            #expect(again.status == 1)
            #expect(again.stdoutText == "")
            #expect(again.stderrText.hasPrefix("error: udid.key: already exists; an enrollment key is not replaced"), "\(again.stderrText)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("udid.key"))) == key)
        }
    }

    @Test func enrollPageWritesThePageFolderWithASignedProfile() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let identities = try TestIdentities.make(in: folder)
            _ = try AdhocBuildBinary.run(["devices", "key", "-o", "udid.key"], in: folder.url.path)
            let result = try AdhocBuildBinary.run(
                [
                    "devices", "enroll-page", "--url", Self.url, "--key", "udid.key", "--identity", identities.leafWithCA,
                    "--password-env", "P12_PASSWORD", "--organization", "Shout Co", "--valid-for", "30d", "-o", "site/udid"
                ], in: folder.url.path, extraEnvironment: ["P12_PASSWORD": TestIdentities.password])
            #expect(result.status == 0, "\(result.stderrText)")
            let lines = result.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.count == 5)
            #expect(
                Array(lines.prefix(4)) == [
                    "site/udid/index.html", "  page:    \(Self.url)",
                    "  profile: \(Self.url)enroll.mobileconfig (signed by \"Test Leaf\", com.example.builds.udid)",
                    "  receive: \(Self.url)receive"
                ])
            #expect(lines.last?.hasPrefix("  challenge expires: ") == true)
            #expect(!result.stdoutText.contains(TestIdentities.password) && !result.stderrText.contains(TestIdentities.password))
            let site = folder.path("site/udid")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: site).sorted() == [
                    "enroll.js", "enroll.mobileconfig", "index.html", "style.css", "thanks.html", "thanks.js"
                ])
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("site")) == ["udid"])
            let openssl = try #require(ProcessResult.which("openssl"))
            let verified = try ProcessResult.run(
                openssl,
                [
                    "cms", "-verify", "-inform", "DER", "-in", site + "/enroll.mobileconfig", "-CAfile", identities.caPEM, "-purpose",
                    "any",
                    "-out", folder.path("profile.plist")
                ])
            #expect(verified.status == 0, "\(verified.stderrText)")
            let python = try #require(ProcessResult.which("python3"))
            let read = try ProcessResult.run(
                python,
                [
                    "-c",
                    "import plistlib, sys; p = plistlib.load(open(sys.argv[1], 'rb')); print(p['PayloadType'], p['PayloadContent']['URL'])",
                    folder.path("profile.plist")
                ])
            #expect(read.stdoutText == "Profile Service \(Self.url)receive\n", "\(read.stderrText)")
        }
    }

    @Test(
        arguments: [
            (
                ["--url", "http://builds.example.com/udid/"], 1,
                "error: --url: 'http://builds.example.com/udid/' is not an https:// address; serve the page and its receiver over HTTPS"
            ),
            (["--url", "https://bad host/udid/"], 1, "error: --url: base URL 'https://bad host/udid/' "),
            (["--url", url, "--key", "missing.key"], 1, "error: missing.key: no such file"),
            (
                ["--url", url, "--identity", "nothing.p12"], 2,
                "error: the p12's password is needed: --password-env VAR or --password-file FILE"
            ),
            (["--url", url, "--password-file", "pw.txt"], 2, "error: --password-env, --password-file and --chain go with --identity"),
            (["--url", url, "--valid-for", "soon"], 2, "error: --valid-for takes a duration such as 7d, 36h or 90m, not 'soon'")
        ] as [([String], Int32, String)])
    func aRefusalIsOneLineAndWritesNothing(arguments: [String], status: Int32, message: String) throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            _ = try AdhocBuildBinary.run(["devices", "key", "-o", "udid.key"], in: folder.url.path)
            let before = folder.snapshot()
            var given = ["devices", "enroll-page", "-o", "site"] + arguments
            if !arguments.contains("--key") { given += ["--key", "udid.key"] }
            let result = try AdhocBuildBinary.run(given, in: folder.url.path)
            #expect(result.status == status)
            #expect(result.stdoutText == "")
            #expect(result.stderrText.hasPrefix(message), "\(result.stderrText)")
            #expect(folder.snapshot() == before)
        }
    }

    @Test func aWrongPasswordIsRefusedWithoutEchoingItAndWritesNothing() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let identities = try TestIdentities.make(in: folder)
            _ = try AdhocBuildBinary.run(["devices", "key", "-o", "udid.key"], in: folder.url.path)
            let before = folder.snapshot()
            let result = try AdhocBuildBinary.run(
                [
                    "devices", "enroll-page", "--url", Self.url, "--key", "udid.key", "--identity", identities.rsa, "--password-env", "PW",
                    "-o", "site"
                ], in: folder.url.path, extraEnvironment: ["PW": "not-the-password"])
            #expect(result.status == 1)
            #expect(result.stderrText == "error: \(identities.rsa): wrong password, or not a PKCS#12 file\n")
            #expect(!result.stderrText.contains("not-the-password"))
            #expect(folder.snapshot() == before)
        }
    }
}
