import Foundation
import TestSupport
import Testing

/// `release --devices STORE`: a real build's profile checked against the testers' device list: a
/// warning per missing device, an error before anything is copied with `--require-devices`, the reach in
/// `build.json` and the index; `Devices` and `EnrollURL` from adhocbuild.plist and the Distribution.
@Suite(Fixtures.enabled) struct ReleaseDevicesCLITests {
    static let ipa = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
    /// In the build's profile (its first device), and in no profile.
    static let listed = "00008020-001964311A08002E"
    static let outsider = "00008030-0000DEADBEEF0001"
    static let missing =
        "device 'Bo's iPhone' (\(outsider)) of devices.plist is not in profile 'iOS Team Provisioning Profile: com.ineva.test-rtmp.Test' "
        + "of Payload/Test.app; it cannot install this build"

    /// A folder with an environment that changes nothing (so the ipa is published as it is) and a
    /// device list of two, one of which the build's profile lacks.
    static func setUp(_ folder: TemporaryFolder, distribution: String = "", store: String = "devices.plist") throws {
        try folder.create("env/QA.plist", Data("<plist version=\"1.0\"><dict>\(distribution)</dict></plist>".utf8))
        try FileManager.default.createDirectory(
            atPath: (folder.path(store) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        for (udid, name) in [(listed, "Ana's iPhone"), (outsider, "Bo's iPhone")] {
            let added = try AdhocBuildBinary.run(["devices", "add", store, "--udid", udid, "--name", name], in: folder.url.path)
            try #require(added.status == 0, "\(added.stderrText)")
        }
    }

    static func release(_ extra: [String], in folder: TemporaryFolder) throws -> ProcessResult {
        try AdhocBuildBinary.run(
            [
                "release", "--env", "QA", "--app", ipa, "--environments", "env", "--base-url", "https://b.example/", "--out", "dist",
                "--ci", "none", "--allow-expired", "-q"
            ] + extra, in: folder.url.path)
    }

    static func json(_ path: String, _ expression: String) throws -> String {
        let python = try #require(ProcessResult.which("python3"))
        let run = try ProcessResult.run(
            python, ["-c", "import json, sys\nd = json.load(open(sys.argv[1]))\nprint(json.dumps(\(expression)))", path])
        try #require(run.status == 0, "\(run.stderrText)")
        return run.stdoutText.trimmingCharacters(in: .newlines)
    }

    @Test func aListedDeviceTheProfileLacksIsAWarningAndTheIndexSaysHowManyItReaches() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.setUp(folder)
            let result = try Self.release(["--devices", "devices.plist"], in: folder)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(result.stderrText.contains("warning: \(Self.missing)\n"))
            #expect(!result.stderrText.contains("Ana's iPhone"))
            #expect(try Self.json(folder.path("dist/QA/1.0-1/build.json"), "d['devices']") == #"{"listed": 2, "reached": 1}"#)
            let index = try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)
            #expect(index.contains(" · reaches 1 of 2 listed devices</span>"))
        }
    }

    @Test func withoutADeviceListBuildJSONSaysNothingOfDevices() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.setUp(folder)
            let result = try Self.release([], in: folder)
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(try Self.json(folder.path("dist/QA/1.0-1/build.json"), "'devices' in d") == "false")
            #expect(!(try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8)).contains("listed device"))
        }
    }

    /// With `--require-devices` the missing device fails the release before the build is copied:
    /// DIST is not even made.
    @Test func requireDevicesFailsBeforeAnythingIsCopied() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.setUp(folder)
            let result = try Self.release(["--devices", "devices.plist", "--require-devices"], in: folder)
            #expect(result.status == 1)
            #expect(result.stderrText == "error: Check the device list failed: \(Self.missing)\n")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
            let covered = try AdhocBuildBinary.run(["devices", "remove", "devices.plist", Self.outsider], in: folder.url.path)
            try #require(covered.status == 0)
            let passes = try Self.release(["--devices", "devices.plist", "--require-devices"], in: folder)
            #expect(passes.status == 0, "\(passes.stderrText)")
            #expect(try Self.json(folder.path("dist/QA/1.0-1/build.json"), "d['devices']") == #"{"listed": 1, "reached": 1}"#)
        }
    }

    @Test func requireDevicesWithoutAListAndAMissingListAreRefused() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.setUp(folder)
            let unlisted = try Self.release(["--require-devices"], in: folder)
            #expect(unlisted.status == 2)
            #expect(unlisted.stderrText.hasPrefix("error: --require-devices needs a device list: --devices STORE"))
            let missing = try Self.release(["--devices", "nope.plist"], in: folder)
            #expect(missing.status == 1)
            #expect(missing.stderrText == "error: Check the device list failed: nope.plist: no such device list\n")
            #expect(!FileManager.default.fileExists(atPath: folder.path("dist")))
        }
    }

    /// `Devices` in the environment's Distribution is taken from the environment file's folder, and in
    /// adhocbuild.plist from that file's; `--explain` says which was used.
    @Test func theDeviceListCanComeFromTheDistributionOrTheProjectFileRelativeToThem() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.setUp(
                folder, distribution: "<key>Distribution</key><dict><key>Devices</key><string>../team/devices.plist</string></dict>",
                store: "team/devices.plist")
            let fromEnvironment = try Self.release(["--explain"], in: folder)
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderrText)")
            #expect(fromEnvironment.stdoutText.contains("env/../team/devices.plist"))
            #expect(fromEnvironment.stderrText.contains("of env/../team/devices.plist is not in profile"))
            try folder.create("env/QA.plist", Data("<plist version=\"1.0\"><dict/></plist>".utf8))
            try folder.create(
                "adhocbuild.plist",
                Data(
                    "<plist version=\"1.0\"><dict><key>Devices</key><string>team/devices.plist</string><key>EnrollURL</key><string>https://b.example/udid/</string></dict></plist>"
                        .utf8))
            let fromProject = try Self.release(["--explain", "--replace", "--project-file", folder.path("adhocbuild.plist")], in: folder)
            #expect(fromProject.status == 0, "\(fromProject.stderrText)")
            #expect(fromProject.stderrText.contains("of \(folder.path("team/devices.plist")) is not in profile"))
            let page = try String(contentsOfFile: folder.path("dist/QA/1.0-1/index.html"), encoding: .utf8)
            #expect(page.contains("Not on the list? <a href=\"https://b.example/udid/\">Register this iPhone</a>"))
        }
    }

    @Test func theEnrollURLIsCheckedAndLinkedFromTheInstallPage() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.setUp(folder)
            let refused = try Self.release(["--enroll-url", "ftp://b.example/udid/"], in: folder)
            #expect(refused.status == 1)
            #expect(
                refused.stderrText
                    == "error: Check the enrollment URL failed: enrollment URL 'ftp://b.example/udid/' must use https, not ftp\n")
            let linked = try Self.release(["--enroll-url", "https://b.example/udid/"], in: folder)
            #expect(linked.status == 0, "\(linked.stderrText)")
            let page = try String(contentsOfFile: folder.path("dist/QA/1.0-1/index.html"), encoding: .utf8)
            #expect(
                page.contains(
                    "<p class=\"hint\" id=\"enroll\">Not on the list? <a href=\"https://b.example/udid/\">Register this iPhone</a>"))
        }
    }
}
