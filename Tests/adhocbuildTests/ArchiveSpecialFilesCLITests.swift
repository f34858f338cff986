import Foundation
import TestSupport
import Testing

/// Issue 31, hangs: a FIFO in an `.xcarchive` beside its app (in dSYMs, which no ipa holds) made
/// `release` and `codesign sign` wait forever copying it. Each command here runs under `timeout`, so a
/// hang fails the test instead of stopping the suite.
@Suite struct ArchiveSpecialFilesCLITests {
    /// The example app in `folder/X.xcarchive`, with a FIFO at `relative` inside the archive.
    func archive(_ folder: TemporaryFolder, fifoAt relative: String) throws -> String {
        let archive = folder.path("X.xcarchive")
        try HostileBuild.exampleApp(at: archive + "/Products/Applications/ShoutOut.app")
        try FileManager.default.createDirectory(
            atPath: ((archive + "/" + relative) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try #require(mkfifo(archive + "/" + relative, 0o644) == 0)
        return archive
    }

    /// Runs `adhocbuild` with `arguments`, killed after 20 seconds (exit 137) when it hangs (with SIGKILL: a process the tests start may inherit SIGTERM blocked).
    func run(_ arguments: [String]) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        return try ProcessResult.run("/usr/bin/timeout", ["-s", "KILL", "20", AdhocBuildBinary.path] + arguments, environment: environment)
    }

    /// `release` of `archive` for Staging into `folder/dist`, unsigned, under `timeout`.
    func release(_ archive: String, in folder: TemporaryFolder) throws -> ProcessResult {
        try run([
            "release", "--env", "Staging", "--app", archive, "--environments", HostileBuild.environments, "--out",
            folder.path("dist"), "--base-url", "https://builds.example.com/", "--ci", "none", "--profile",
            try ReleaseCLITests().profile(folder), "-q"
        ])
    }

    @Test func aReleaseOfAnArchiveCopiesOnlyWhatGoesIntoTheIpaSoAFIFOInItsDSYMsIsNeverOpened() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let archive = try archive(folder, fifoAt: "dSYMs/ShoutOut.app.dSYM/fifo")
            let result = try release(archive, in: folder)
            #expect(result.status == 0, "\(result.status): \(result.stderrText)")
            #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.4.0-41/ShoutOut.ipa")))
        }
    }

    @Test func aFIFOInTheSwiftSupportAnArchivePutsIntoTheIpaIsRefusedNamingIt() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let archive = try archive(folder, fifoAt: "SwiftSupport/iphoneos/fifo")
            let result = try release(archive, in: folder)
            #expect(result.status == 1)
            #expect(
                result.stderrText
                    == "error: Check the input files failed: \(archive)/SwiftSupport/iphoneos/fifo: is neither a file, a folder nor a symbolic link\n"
            )
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
        }
    }

    /// Signing an archive copies all of it (its output is an archive): a FIFO beside the app is refused
    /// naming it, and nothing is written.
    @Test func signingAnArchiveRefusesAFIFOBesideItsAppNamingIt() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let (made, profile) = try CodeSignSignCLITests.setUp(folder)
            let archive = try archive(folder, fifoAt: "dSYMs/ShoutOut.app.dSYM/fifo")
            let result = try run([
                "codesign", "sign", archive, "-o", folder.path("out/Y.xcarchive"), "--identity", made.rsa, "--password-file",
                made.passwordFile, "--profile", profile
            ])
            #expect(result.status == 1, "\(result.status): \(result.stderrText)")
            #expect(
                result.stderrText == "error: \(archive)/dSYMs/ShoutOut.app.dSYM/fifo: is neither a file, a folder nor a symbolic link\n")
            #expect(!FileManager.default.fileExists(atPath: folder.path("out")))
        }
    }
}
