import Foundation
import TestSupport
import Testing

/// Issue 31, half-done states: what a killed run leaves in the folder a command writes into (a copy
/// of the app as large as the app beside it, a half-written ipa) is removed by the next run of any
/// command that writes there, and what a running one has there is left alone.
@Suite struct HalfDoneStateCLITests {
    /// A copy of the example app in `folder/in`, and beside it a dead run's copy of it (1 MB) and a
    /// running one's.
    func appWithLeftovers(_ folder: TemporaryFolder) throws -> (app: String, live: String) {
        let app = try HostileBuild.exampleApp(at: folder.path("in/ShoutOut.app"))
        try folder.create("in/\(Leftover.dead("ShoutOut.app"))/ShoutOut", Data(count: 1 << 20))
        let live = try Leftover.live("ShoutOut.app")
        try folder.create("in/\(live)/ShoutOut", Data(count: 10))
        return (app, live)
    }

    @Test func signingInPlaceRemovesTheCopiesKilledRunsLeftBesideTheApp() throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try CodeSignSignCLITests.setUp(folder)
            let (app, live) = try appWithLeftovers(folder)
            let result = try AdhocBuildBinary.run([
                "codesign", "sign", app, "--identity", made.rsa, "--password-file", made.passwordFile, "--profile", profile
            ])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(Leftover.names(in: folder.path("in")) == [live])
            #expect(FileManager.default.fileExists(atPath: app + "/_CodeSignature/CodeResources"))
        }
    }

    /// `env apply` and `version bump` with a signer change a copy beside the app; without one, they
    /// write into the app, and clear beside it what signing runs left.
    @Test(arguments: [true, false]) func changingAnAppRemovesTheCopiesKilledRunsLeftBesideIt(signed: Bool) throws {
        try withTemporaryFolder { folder in
            let (made, profile) = try CodeSignSignCLITests.setUp(folder)
            let signing = signed ? ["--sign-identity", made.rsa, "--sign-password-file", made.passwordFile, "--sign-profile", profile] : []
            for command in [
                ["env", "apply", "Staging", "--app", folder.path("in/ShoutOut.app"), "--environments", HostileBuild.environments],
                ["version", "bump", "build", folder.path("in/ShoutOut.app"), "--to", "77"]
            ] {
                try? FileManager.default.removeItem(atPath: folder.path("in"))
                let (_, live) = try appWithLeftovers(folder)
                let result = try AdhocBuildBinary.run(command + signing)
                #expect(result.status == 0, "\(command[0]): \(result.stderrText)")
                #expect(Leftover.names(in: folder.path("in")) == [live], "\(command[0])")
            }
        }
    }

    /// A version bump that has nothing to change still clears the plist's folder (the killed run may
    /// have been the one that would have changed it).
    @Test func aVersionBumpThatChangesNothingStillRemovesLeftovers() throws {
        try withTemporaryFolder { folder in
            let plist = try folder.write(
                "Info.plist", "<plist version=\"1.0\"><dict><key>CFBundleVersion</key><string>5</string></dict></plist>")
            try folder.create(Leftover.dead("Info.plist"), Data("half".utf8))
            let result = try AdhocBuildBinary.run(["version", "bump", "build", "--to", "5", "--plist", plist])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(Leftover.names(in: folder.url.path) == [])
        }
    }

    /// An ipa written to a stream is made in TMPDIR first; a killed run's is removed there.
    @Test func packagingToAStreamRemovesTheIpasKilledRunsLeftInTMPDIR() throws {
        try withTemporaryFolder { folder in
            try folder.create("tmp/\(Leftover.dead("ShoutOut.ipa"))", Data(count: 1 << 20))
            let live = try Leftover.live("ShoutOut.ipa")
            try folder.create("tmp/\(live)", Data(count: 10))
            let result = try AdhocBuildBinary.run(
                ["package", HostileBuild.example, "-o", "/dev/null", "-q"], extraEnvironment: ["TMPDIR": folder.path("tmp")])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(Leftover.names(in: folder.path("tmp")) == [live])
        }
    }

    /// The CI report is written once the release is published: a report file that cannot be written
    /// fails the release before DIST is made (it failed after publishing, and a retry was refused).
    @Test func aReportFileThatCannotBeWrittenFailsTheReleaseBeforeDISTChanges() throws {
        try withTemporaryFolder { folder in
            try folder.create("report/notes.txt", Data("the user's".utf8))
            let root = Fixtures.packageRoot.path
            let arguments = [
                "release", "--env", "Staging", "--app", root + "/examples/ShoutOut/ShoutOut.app", "--environments",
                root + "/environments", "--out", folder.path("dist"), "--profile",
                try ReleaseCLITests().profile(folder), "--ci", "jenkins", "-q", "--report-file"
            ]
            let jenkins = ["BUILD_URL": "https://jenkins.example.com/job/shoutout/12/"]
            let refused = try AdhocBuildBinary.run(arguments + [folder.path("report")], extraEnvironment: jenkins)
            #expect(refused.status == 1)
            #expect(
                refused.stderrText == "error: Check the CI report files failed: \(folder.path("report")): is a folder, not a file\n",
                "\(refused.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
            let released = try AdhocBuildBinary.run(arguments + [folder.path("adhocbuild.properties")], extraEnvironment: jenkins)
            #expect(released.status == 0, "\(released.stderrText)")
            #expect(FileManager.default.fileExists(atPath: folder.path("adhocbuild.properties")))
        }
    }
}
