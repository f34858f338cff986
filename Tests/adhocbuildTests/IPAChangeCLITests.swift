import Foundation
import PlistKit
import TestSupport
import Testing

/// `env apply --app IN.ipa -o OUT.ipa` and `version bump build IN.ipa -o OUT.ipa`: an exported ipa is
/// changed into a new one, and the input is replaced only when `-o` names it (issue 32).
@Suite struct IPAChangeCLITests {
    static let root = Fixtures.packageRoot.path

    /// The example app packaged as `folder/in.ipa` (unsigned).
    static func exampleIPA(_ folder: TemporaryFolder) throws -> String {
        let ipa = folder.path("in.ipa")
        let result = try AdhocBuildBinary.run(["package", root + "/examples/ShoutOut/ShoutOut.app", "-o", ipa, "-q"])
        try #require(result.status == 0, "\(result.stderrText)")
        return ipa
    }

    static func info(_ ipa: String) throws -> PlistValue {
        let result = try ProcessResult.run("/usr/bin/unzip", ["-p", ipa, "Payload/ShoutOut.app/Info.plist"])
        return try PropertyList(data: result.stdout).value
    }

    @Test func envApplyWritesANewIPAAndLeavesTheInputAlone() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.exampleIPA(folder)
            let before = try Data(contentsOf: URL(fileURLWithPath: ipa))
            let environments = Self.root + "/environments"
            let missing = try AdhocBuildBinary.run(["env", "apply", "Staging", "--app", ipa, "--environments", environments])
            #expect(missing.status == 1)
            #expect(missing.stderrText.contains("name the new ipa with --output OUT.ipa"), "\(missing.stderrText)")
            let out = folder.path("staging.ipa")
            let applied = try AdhocBuildBinary.run(["env", "apply", "Staging", "--app", ipa, "--environments", environments, "-o", out])
            #expect(applied.status == 0, "\(applied.stderrText)")
            #expect(applied.stdoutText.contains(out + ": Payload/ShoutOut.app/Info.plist"), "\(applied.stdoutText)")
            #expect(!applied.stdoutText.contains(".adhocbuild-tmp"), "\(applied.stdoutText)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: ipa)) == before)
            #expect(try Self.info(out)["CFBundleIdentifier"]?.stringValue == "com.example.shoutout.staging")
            let listing = try ProcessResult.run("/usr/bin/unzip", ["-l", out])
            #expect(listing.stdoutText.contains("Payload/ShoutOut.app/environment.plist"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["in.ipa", "staging.ipa"])
        }
    }

    @Test func versionBumpOfAnIPAReplacesItOnlyWhenTheOutputNamesIt() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.exampleIPA(folder)
            let bumped = try AdhocBuildBinary.run(["version", "bump", "build", ipa, "--to", "97", "-o", ipa])
            #expect(bumped.status == 0, "\(bumped.stderrText)")
            #expect(bumped.stdoutText.contains("Build number is now 97."), "\(bumped.stdoutText)")
            #expect(try Self.info(ipa)["CFBundleVersion"]?.stringValue == "97")
            let dry = try AdhocBuildBinary.run(["version", "bump", "build", ipa, "--to", "98", "-o", folder.path("x.ipa"), "--dry-run"])
            #expect(dry.status == 0, "\(dry.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("x.ipa")))
            #expect(try Self.info(ipa)["CFBundleVersion"]?.stringValue == "97")
        }
    }

    @Test(Fixtures.enabled) func aSignedIPAIsNotBumpedWithoutAnIdentityAndNothingIsWritten() throws {
        try withTemporaryFolder { folder in
            let fixture = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
            let before = folder.snapshot()
            let result = try AdhocBuildBinary.run(["version", "bump", "build", fixture, "--to", "5", "-o", folder.path("out.ipa")])
            #expect(result.status == 1)
            #expect(result.stderrText.contains("--allow-broken-signature"), "\(result.stderrText)")
            #expect(folder.snapshot() == before)
        }
    }
}
