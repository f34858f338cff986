import Foundation
import TestSupport
import Testing

/// `adhocbuild devices list|add|import|remove|export` as a user runs them: the store read back with Python's
/// plistlib, bad input refused in one line with nothing written.
@Suite struct DeviceCommandsCLITests {
    static let ana = "00008030-001A2D3C0E12802E"
    static let bo = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
    static let mac = "A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90"

    static func run(_ arguments: [String], in folder: TemporaryFolder) throws -> ProcessResult {
        try AdhocBuildBinary.run(["devices"] + arguments, in: folder.url.path, extraEnvironment: ["USER": "tester"])
    }

    /// Adds three devices to `devices.plist` in `folder`.
    static func addThree(in folder: TemporaryFolder) throws {
        for (udid, name, model) in [
            (ana, "Ana's iPhone", "iPhone12,1"), (bo, "Bo's iPad", "iPad6,11"), (mac, "Build Mac", "MacBookPro16,1")
        ] {
            let added = try run(["add", "devices.plist", "--udid", udid, "--name", name, "--model", model], in: folder)
            try #require(added.status == 0, "\(added.stderrText)")
            #expect(added.stdoutText == "added \(udid) \(name)\n")
        }
    }

    static func plistlib(_ path: String, _ expression: String) throws -> String {
        let python = try #require(ProcessResult.which("python3"))
        let script = "import plistlib, sys, json\nd = plistlib.load(open(sys.argv[1], 'rb'))\nprint(json.dumps(\(expression)))"
        let run = try ProcessResult.run(python, ["-c", script, path])
        try #require(run.status == 0, "\(run.stderrText)")
        return run.stdoutText.trimmingCharacters(in: .newlines)
    }

    @Test func addWritesTheDeviceWithWhoAddedItAndListShowsIt() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.addThree(in: folder)
            let store = folder.path("devices.plist")
            #expect(
                try Self.plistlib(store, "[(x['UDID'], x['Name'], x['Platform'], x['AddedBy'], x['Source']) for x in d['Devices']]")
                    == #"[["\#(Self.ana)", "Ana's iPhone", "ios", "tester", "manual"], ["\#(Self.bo)", "Bo's iPad", "ios", "tester", "manual"], "#
                    + #"["\#(Self.mac)", "Build Mac", "mac", "tester", "manual"]]"#)
            let byOption = try Self.run(
                ["add", "devices.plist", "--udid", Self.ana.lowercased(), "--name", "Ana", "--by", "lead"], in: folder)
            #expect(byOption.stdoutText == "updated \(Self.ana.lowercased()) Ana\n")
            #expect(
                try Self.plistlib(store, "[d['Devices'][0]['Name'], d['Devices'][0]['AddedBy'], len(d['Devices'])]")
                    == #"["Ana", "tester", 3]"#)
            let list = try Self.run(["list", "devices.plist"], in: folder)
            #expect(list.status == 0)
            let lines = list.stdoutText.split(separator: "\n").map(String.init)
            let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
            #expect(lines.count == 5)
            #expect(lines.first == "UDID                                      PLATFORM  MODEL           ADDED       BY      NAME")
            #expect(lines[1] == "\(Self.ana)                 ios       iPhone12,1      \(today)  tester  Ana")
            #expect(lines[3] == "\(Self.mac)      mac       MacBookPro16,1  \(today)  tester  Build Mac")
            #expect(lines.last == "3 devices (2 ios, 1 mac)")
        }
    }

    @Test func listJSONAndExportJSONAreTheSame() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.addThree(in: folder)
            let list = try Self.run(["list", "devices.plist", "--json"], in: folder)
            let export = try Self.run(["export", "devices.plist", "--format", "json"], in: folder)
            #expect(list.status == 0 && export.status == 0)
            #expect(list.stdout == export.stdout)
            let objects = try #require(try JSONSerialization.jsonObject(with: list.stdout) as? [[String: Any]])
            #expect(objects.map { $0["udid"] as? String } == [Self.ana, Self.bo, Self.mac])
            #expect(objects[2]["platform"] as? String == "mac" && objects[2]["model"] as? String == "MacBookPro16,1")
            #expect(objects[0]["source"] as? String == "manual" && objects[0]["addedBy"] as? String == "tester")
        }
    }

    @Test func exportWritesThePortalFileSortedByName() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.addThree(in: folder)
            let export = try Self.run(["export", "devices.plist", "--format", "tsv", "-o", "portal.txt"], in: folder)
            #expect(export.status == 0, "\(export.stderrText)")
            #expect(export.stdoutText == "" && export.stderrText == "")
            #expect(
                try String(contentsOfFile: folder.path("portal.txt"), encoding: .utf8)
                    == "Device ID\tDevice Name\tDevice Platform\n\(Self.ana)\tAna's iPhone\tios\n\(Self.bo)\tBo's iPad\tios\n"
                    + "\(Self.mac)\tBuild Mac\tmac\n")
        }
    }

    @Test func removeTakesEveryUDIDOrNone() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.addThree(in: folder)
            let before = folder.snapshot()
            let unknown = "00008030-0000000000000000"
            let refused = try Self.run(["remove", "devices.plist", Self.ana, unknown], in: folder)
            #expect(refused.status == 1)
            #expect(refused.stdoutText == "")
            #expect(refused.stderrText == "error: devices.plist: '\(unknown)' is not listed\n")
            #expect(folder.snapshot() == before)
            let removed = try Self.run(["remove", "devices.plist", Self.ana.lowercased(), Self.mac], in: folder)
            #expect(removed.status == 0, "\(removed.stderrText)")
            #expect(removed.stdoutText == "removed \(Self.ana) Ana's iPhone\nremoved \(Self.mac) Build Mac\n")
            #expect(try Self.plistlib(folder.path("devices.plist"), "[x['UDID'] for x in d['Devices']]") == #"["\#(Self.bo)"]"#)
        }
    }

    @Test(arguments: [
        (
            ["add", "devices.plist", "--udid", "0000803-001A2D3C0E12802E", "--name", "A"],
            "error: '0000803-001A2D3C0E12802E' is not a device UDID"
        ),
        (["add", "devices.plist", "--udid", ana, "--name", ""], "error: a device name cannot be empty"),
        (["add", "devices.plist", "--udid", ana, "--name", "A\tB"], "error: 'A\\tB' is not a device name: it holds a control character")
    ])
    func badInputToAddIsRefusedWithNothingWritten(arguments: [String], message: String) throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let result = try Self.run(arguments, in: folder)
            #expect(result.status == 1)
            #expect(result.stderrText.hasPrefix(message), "\(result.stderrText)")
            #expect(result.stderrText.split(separator: "\n").count == 1)
            #expect(folder.snapshot().isEmpty)
        }
    }

    @Test func importMergesOtherListsAndRefusesABadFileWithNothingChanged() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.addThree(in: folder)
            let newPhone = "00008110-000A11223344556E"
            try "Device ID\tDevice Name\tDevice Platform\r\n\(Self.ana)\tAna (work)\tios\r\n\(newPhone)\tCy's iPhone\tios\r\n"
                .write(toFile: folder.path("portal.txt"), atomically: true, encoding: .utf8)
            let imported = try Self.run(["import", "devices.plist", "portal.txt", "--by", "lead"], in: folder)
            #expect(imported.status == 0, "\(imported.stderrText)")
            #expect(
                imported.stdoutText
                    == "updated \(Self.ana) Ana (work)\nadded \(newPhone) Cy's iPhone\n2 devices read: 1 added, 1 updated, 0 already listed\n"
            )
            #expect(
                try Self.plistlib(folder.path("devices.plist"), "[(x['Name'], x['AddedBy'], x['Source']) for x in d['Devices']]")
                    == #"[["Ana (work)", "tester", "manual"], ["Bo's iPad", "tester", "manual"], ["Build Mac", "tester", "manual"], "#
                    + #"["Cy's iPhone", "lead", "import"]]"#)
            // A file with one bad line among good ones: nothing from any file is added.
            try "\(newPhone)\tCy\n0000\tBad\n".write(toFile: folder.path("bad.txt"), atomically: true, encoding: .utf8)
            let before = folder.snapshot()
            let refused = try Self.run(["import", "devices.plist", "portal.txt", "bad.txt"], in: folder)
            #expect(refused.status == 1)
            #expect(refused.stdoutText == "")
            #expect(refused.stderrText.hasPrefix("error: bad.txt: line 2: '0000' is not a device UDID"), "\(refused.stderrText)")
            #expect(refused.stderrText.split(separator: "\n").count == 1)
            #expect(folder.snapshot() == before)
        }
    }

    @Test func aMissingStoreListsNoDevices() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let result = try Self.run(["list", "devices.plist"], in: folder)
            #expect(result.status == 0)
            #expect(result.stdoutText == "no devices\n")
            #expect(folder.snapshot().isEmpty)
        }
    }

    @Test(arguments: ["list", "add", "import", "remove", "export"])
    func helpMatchesItsSnapshot(command: String) throws {
        let result = try AdhocBuildBinary.run(["devices", command, "--help"])
        #expect(result.status == 0)
        #expect(result.stderrText == "")
        try CLITests().assertSnapshot(result.stdoutText, "help-devices-" + command)
    }

    /// `devices add` on a full disk: one line naming the store and its disk, the store as it was, no
    /// temporary file left. The disk is a small tmpfs (in a user and mount namespace of its own) holding
    /// the store and a file that fills the rest.
    @Test(.enabled(if: SmallDisk.canMount, "unshare -rm cannot mount a tmpfs here"))
    func aFullDiskLeavesTheStoreAsItWas() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try Self.addThree(in: folder)
            let disk = folder.path("disk")
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            let script = """
                mount -t tmpfs -o size=64k tmpfs "$1" && cp "$2" "$1/devices.plist" || exit 99
                dd if=/dev/zero of="$1/filler" bs=1024 2>/dev/null
                "$0" devices add "$1/devices.plist" --udid 00008030-0000000000000009 --name "One more"
                echo "status $?"
                cmp -s "$2" "$1/devices.plist" && echo "store unchanged"
                ls -A "$1"
                """
            let result = try ProcessResult.run(
                try #require(ProcessResult.which("unshare")),
                ["-rm", "/bin/sh", "-c", script, AdhocBuildBinary.path, disk, folder.path("devices.plist")],
                environment: ["NO_COLOR": "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
            #expect(result.stdoutText == "status 1\nstore unchanged\ndevices.plist\nfiller\n")
            #expect(
                result.stderrText
                    == "error: no space left on the disk holding \(disk)/devices.plist (the file system mounted at \(disk))\n")
        }
    }
}
