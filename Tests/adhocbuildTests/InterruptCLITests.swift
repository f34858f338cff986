import Foundation
import TestSupport
import Testing

/// Issue 32: Ctrl-C (SIGINT) or SIGTERM at any step of `release` (and while `package`, `codesign sign`,
/// `env apply` and `version bump` hold their work files) leaves the outputs as they were and no work
/// file anywhere, and exits 130 or 143 with one line saying so.
@Suite(.serialized) struct InterruptCLITests {
    /// The example app at `folder/in/ShoutOut.app`, a signing identity and profile, and the arguments of
    /// a signed release of it as build `build` into `folder/dist`.
    func releaseSetUp(_ folder: TemporaryFolder) throws -> (app: String, arguments: (String) -> [String]) {
        let (made, profile) = try CodeSignSignCLITests.setUp(folder)
        let app = try HostileBuild.exampleApp(at: folder.path("in/ShoutOut.app"))
        let dist = folder.path("dist")
        let arguments = { (build: String) in
            [
                "release", "--env", "Staging", "--app", app, "--environments", HostileBuild.environments, "--out", dist,
                "--base-url", "https://builds.example.com/", "--ci", "none", "--build-number", build,
                "--sign-identity", made.rsa, "--sign-password-file", made.passwordFile, "--sign-profile", profile
            ]
        }
        return (app, arguments)
    }

    /// Every path under `folder` that holds adhocbuild's temporary prefix.
    func workFiles(_ folder: TemporaryFolder) -> [String] {
        folder.listing().keys.filter { $0.contains(".adhocbuild-tmp-") }.sorted()
    }

    @Test func sigintAtEveryStepOfAReleaseLeavesDISTAsItWas() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, arguments) = try releaseSetUp(folder)
            let first = try AdhocBuildBinary.run(arguments("51"))
            try #require(first.status == 0, "\(first.stderrText)")
            let steps = first.stdoutText.split(separator: "\n").filter { $0.hasPrefix("==> ") }.map { String($0.dropFirst(4)) }
            try #require(steps.count > 10 && steps.contains { $0.hasPrefix("Sign as") }, "\(steps)")
            let before = folder.listing()
            for step in steps {
                let run = try InterruptedRun.run(arguments("52"), pauseAt: "step:" + step, signal: SIGINT)
                #expect(run.paused, "\(step): \(run.stderr)")
                #expect(run.status == 130 && !run.killedBySignal, "\(step): \(run.status) \(run.stderr)")
                #expect(run.messages == "error: interrupted by SIGINT: nothing was published; its work files are removed\n", "\(step)")
                #expect(workFiles(folder) == [], "\(step)")
                let after = folder.listing()
                #expect(after == before, "\(step): \(Set(after.keys).symmetricDifference(before.keys).sorted())")
            }
            // Nothing was left half-published: the same release goes through.
            let second = try AdhocBuildBinary.run(arguments("52"))
            #expect(second.status == 0, "\(second.stderrText)")
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-52/ShoutOut.ipa")))
        }
    }

    @Test func sigtermWhileAReleaseIsPackagedExits143AndLeavesDISTAsItWas() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, arguments) = try releaseSetUp(folder)
            let before = folder.listing()
            let run = try InterruptedRun.run(arguments("51"), pauseAt: "commit:ShoutOut.ipa", signal: SIGTERM)
            #expect(run.paused, "\(run.stderr)")
            #expect(run.status == 143 && !run.killedBySignal, "\(run.status) \(run.stderr)")
            #expect(run.messages == "error: interrupted by SIGTERM: nothing was published; its work files are removed\n")
            #expect(workFiles(folder) == [])
            // DIST was made (as a failed release makes it); nothing is in it.
            #expect(folder.listing().filter { !$0.key.hasPrefix("dist") } == before)
            #expect(folder.listing("dist") == [:])
        }
    }

    /// The commands that write beside their output, interrupted just before it is put in place (their
    /// work files complete): the output and the input are as they were, no work file is left.
    @Test func packageSignEnvApplyAndVersionBumpInterruptedLeaveTheirOutputsAsTheyWere() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (made, profile) = try CodeSignSignCLITests.setUp(folder)
            let app = try HostileBuild.exampleApp(at: folder.path("in/ShoutOut.app"))
            let signing = ["--sign-identity", made.rsa, "--sign-password-file", made.passwordFile, "--sign-profile", profile]
            try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
            let packaged = try AdhocBuildBinary.run(["package", app, "-o", folder.path("out/Old.ipa"), "-q"])
            try #require(packaged.status == 0, "\(packaged.stderrText)")
            try folder.create("out/ShoutOut.ipa", Data("an older ipa".utf8))
            let cases: [(name: String, arguments: [String], point: String, signal: Int32)] = [
                ("package", ["package", app, "-o", folder.path("out/ShoutOut.ipa")], "commit:ShoutOut.ipa", SIGINT),
                (
                    "codesign sign in place",
                    ["codesign", "sign", app, "--identity", made.rsa, "--password-file", made.passwordFile, "--profile", profile],
                    "commit:ShoutOut.app", SIGINT
                ),
                (
                    "codesign sign an ipa",
                    [
                        "codesign", "sign", folder.path("out/Old.ipa"), "-o", folder.path("out/ShoutOut.ipa"), "--identity", made.rsa,
                        "--password-file", made.passwordFile, "--profile", profile
                    ], "commit:ShoutOut.ipa", SIGTERM
                ),
                (
                    "env apply with a signer",
                    ["env", "apply", "Staging", "--app", app, "--environments", HostileBuild.environments] + signing,
                    "commit:ShoutOut.app", SIGINT
                ),
                (
                    "env apply in place", ["env", "apply", "Staging", "--app", app, "--environments", HostileBuild.environments],
                    "commit:", SIGINT
                ),
                (
                    "version bump of an ipa",
                    ["version", "bump", "build", folder.path("out/Old.ipa"), "--to", "99", "-o", folder.path("out/ShoutOut.ipa")],
                    "commit:ShoutOut.ipa", SIGTERM
                )
            ]
            let before = folder.listing()
            for (name, arguments, point, signal) in cases {
                let run = try InterruptedRun.run(arguments, pauseAt: point, signal: signal)
                #expect(run.paused, "\(name): \(run.stderr)")
                #expect(run.status == 128 + signal && !run.killedBySignal, "\(name): \(run.status) \(run.stderr)")
                let signalName = signal == SIGINT ? "SIGINT" : "SIGTERM"
                #expect(run.messages == "error: interrupted by \(signalName): nothing was changed; its work files are removed\n", "\(name)")
                #expect(workFiles(folder) == [], "\(name)")
                let after = folder.listing()
                #expect(after == before, "\(name): \(Set(after.keys).symmetricDifference(before.keys).sorted())")
            }
        }
    }

    /// A run killed (SIGKILL, which nothing can catch) after moving the release into DIST and before
    /// `latest` and the index were written left a release the next run refused as already published;
    /// the next run now publishes it again, without `--replace`.
    @Test func aReleaseWhosePublicationWasKilledIsPublishedAgainWithoutReplace() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, arguments) = try releaseSetUp(folder)
            let first = try AdhocBuildBinary.run(arguments("51"))
            try #require(first.status == 0, "\(first.stderrText)")
            let killed = try InterruptedRun.run(arguments("52"), pauseAt: "publish:moved into DIST", signal: SIGKILL)
            #expect(killed.paused && killed.killedBySignal, "\(killed.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-52/ShoutOut.ipa")))
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-52/.adhocbuild-unfinished")))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist/Staging/latest")) == "1.4.0-51")
            let again = try AdhocBuildBinary.run(arguments("52"))
            #expect(again.status == 0, "\(again.stderrText)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.path("dist/Staging/latest")) == "1.4.0-52")
            let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
            #expect(index.contains("Staging/1.4.0-52/"))
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-52/.adhocbuild-unfinished")))
            #expect(workFiles(folder) == [])
            // Once finished, it is published: the next run is refused as before.
            let refused = try AdhocBuildBinary.run(arguments("52"))
            #expect(refused.status == 1)
            #expect(refused.stderrText.contains("1.4.0-52: is already published"), "\(refused.stderrText)")
        }
    }

    /// A release already published is refused before the build is copied, signed and packaged, with
    /// the message Publish gave (it was found only there).
    @Test func aReleaseAlreadyPublishedIsRefusedBeforeTheBuildIsCopied() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (_, arguments) = try releaseSetUp(folder)
            let first = try AdhocBuildBinary.run(arguments("54"))
            try #require(first.status == 0, "\(first.stderrText)")
            let before = folder.listing()
            let again = try AdhocBuildBinary.run(arguments("54"))
            #expect(again.status == 1)
            #expect(
                again.stderrText
                    == "error: Check \(folder.path("dist")) failed: \(folder.path("dist/Staging/1.4.0-54")): is already published, "
                    + "and testers may be installing it; give the build a new number, or pass --replace to replace it\n")
            #expect(!again.stdoutText.contains("==> Copy the build"), "\(again.stdoutText)")
            #expect(folder.listing() == before)
        }
    }
}
