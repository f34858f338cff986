import Foundation
import TestSupport
import Testing

/// Whether a small tmpfs can be mounted for one command, in a user and mount namespace of its own.
enum SmallDisk {
    static let canMount: Bool = {
        guard let unshare = ProcessResult.which("unshare"),
            let probe = try? ProcessResult.run(unshare, ["-rm", "/bin/sh", "-c", "mount -t tmpfs -o size=4k tmpfs /tmp"])
        else { return false }
        return probe.status == 0
    }()
}

/// Commands that run out of disk space say so in one line naming the output and the disk: they blamed
/// the input (`…/Test.app/embedded.mobileprovision: cannot be written`), said `cannot be written:
/// cannot be written:`, named temporary files that never appear, or printed Foundation's error dump.
/// The disk is a small tmpfs mounted in a user and mount namespace of the command's own (`unshare -rm`).
@Suite(.enabled(if: SmallDisk.canMount, "unshare -rm cannot mount a tmpfs here"))
struct FullDiskCLITests {
    /// Runs adhocbuild with `arguments` while `disk` is a tmpfs of `size` (like `64k`), in `folder`.
    static func run(_ arguments: [String], disk: String, size: String, in folder: String, environment: [String: String] = [:]) throws
        -> ProcessResult
    {
        var merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        merged["NO_COLOR"] = "1"
        let script = "mount -t tmpfs -o size=\"$1\" tmpfs \"$2\" && shift 2 && exec \"$@\""
        return try ProcessResult.run(
            try #require(ProcessResult.which("unshare")),
            ["-rm", "/bin/sh", "-c", script, "sh", size, disk, AdhocBuildBinary.path] + arguments,
            environment: merged, in: folder)
    }

    /// Every step a release can be at when the disk fills (the copy, the signing, the page, the
    /// index) names DIST and its disk, once, with no temporary or input path.
    @Test func aReleaseOnAFullDiskNamesDISTAndItsDisk() throws {
        try withTemporaryFolder { folder in
            let root = Fixtures.packageRoot.path
            let signing = try SigningCLITests().makeIdentity(folder, appID: "com.example.shoutout.staging", password: "pw")
            let disk = folder.path("disk")
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            let app = folder.path("ShoutOut.app")
            try FileManager.default.copyItem(atPath: root + "/examples/ShoutOut/ShoutOut.app", toPath: app)
            let dist = disk + "/dist"
            let arguments = [
                "release", "--env", "Staging", "--app", app, "--environments", root + "/environments", "--base-url",
                "https://builds.example.com/", "--out", dist, "--ci", "none", "-q", "--sign-identity", signing + "/demo.p12",
                "--sign-password-env", "P12", "--sign-profile", signing + "/ShoutOut.mobileprovision"
            ]
            var steps: Set<String> = []
            for size in ["16k", "48k", "96k", "144k", "192k", "256k", "384k"] {
                let result = try Self.run(arguments, disk: disk, size: size, in: folder.url.path, environment: ["P12": "pw"])
                guard result.status != 0 else { continue }
                let line = result.stderrText
                #expect(result.status == 1, "\(size): \(line)")
                #expect(line.split(separator: "\n").count == 1, "\(size): \(line)")
                #expect(
                    line.contains(" failed: no space left on the disk holding \(dist) (the file system mounted at \(disk))"),
                    "\(size): \(line)")
                #expect(!line.contains(app) && !line.contains(".adhocbuild-tmp") && !line.contains("cannot be written"), "\(size): \(line)")
                steps.insert(String(line.dropFirst("error: ".count).prefix { $0 != " " }))
            }
            #expect(steps.count >= 2, "\(steps)")
        }
    }

    /// `page` and `package` name their output and its disk, not a temporary file or Foundation's dump.
    @Test func pageAndPackageOnAFullDiskNameTheirOutput() throws {
        try withTemporaryFolder { folder in
            let root = Fixtures.packageRoot.path
            let disk = folder.path("disk")
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            let ipa = folder.path("ShoutOut.ipa")
            let packaged = try AdhocBuildBinary.run(["package", root + "/examples/ShoutOut/ShoutOut.app", "-o", ipa])
            try #require(packaged.status == 0, "\(packaged.stderrText)")
            for (arguments, output) in [
                (["package", root + "/examples/ShoutOut/ShoutOut.app", "-o", disk + "/S.ipa"], disk + "/S.ipa"),
                (["page", ipa, "--base-url", "https://builds.example.com/", "-o", disk + "/site"], disk + "/site")
            ] {
                let result = try Self.run(arguments, disk: disk, size: "8k", in: folder.url.path)
                #expect(result.status == 1, "\(arguments)")
                #expect(
                    result.stderrText == "error: no space left on the disk holding \(output) (the file system mounted at \(disk))\n",
                    "\(arguments)")
            }
        }
    }
}
