import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

/// The device store: a change is read, applied and written whole by rename under the folder's lock;
/// what it does not know is kept; a failed change writes nothing. The written file is read back with
/// Python's plistlib.
@Suite struct DeviceStoreTests {
    static let monday = Date(timeIntervalSince1970: 1_780_000_000)
    static let tuesday = monday.addingTimeInterval(86_400.25)
    static let ana = "00008030-001A2D3C0E12802E"

    static func record(
        _ udid: String = ana, name: String = "Ana's iPhone", model: String? = "iPhone12,1", source: DeviceRecord.Source = .manual
    ) throws -> DeviceRecord {
        try DeviceRecord(udid: udid, name: name, model: model, osBuild: "21A329", added: monday, addedBy: "ana", source: source)
    }

    /// A UDID of the newer shape, numbered.
    static func udid(_ number: Int) -> String { "00008030-" + String(format: "%016X", number) }

    @Test func aMissingFileIsAnEmptyListAndTheFirstChangeWritesAnXMLPlist() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let store = DeviceStore(path: folder.path("devices.plist"))
            #expect(try store.load() == DeviceList())
            let outcome = try store.update { $0.merge(try Self.record(), now: Self.monday) }
            #expect(outcome == .added)
            let (xml, keys, root) = try DeviceStoreOracle.read(store.path)
            #expect(xml)
            #expect(keys == ["Version", "Devices", "Seen"])
            #expect(root["Version"] as? Int == 1)
            let device = try #require(try DeviceStoreOracle.devices(store.path).first)
            #expect(device["UDID"] as? String == Self.ana)
            #expect(device["Name"] as? String == "Ana's iPhone")
            #expect(device["Model"] as? String == "iPhone12,1")
            #expect(device["OSBuild"] as? String == "21A329")
            #expect(device["Platform"] as? String == "ios")
            #expect(device["Added"] as? String == "2026-05-28T20:26:40Z")
            #expect(device["AddedBy"] as? String == "ana")
            #expect(device["Source"] as? String == "manual")
            #expect(device["Serial"] == nil && device["SignerIssuer"] == nil)
            #expect(try store.load().devices == [try Self.record()])
        }
    }

    @Test func aListedUDIDInAnyCaseIsRefreshedAndKeepsWhenAndByWhomItWasAdded() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let store = DeviceStore(path: folder.path("devices.plist"))
            try store.update { $0.merge(try Self.record(), now: Self.monday) }
            var again = try Self.record(Self.ana.lowercased(), name: "Ana's new name", model: nil, source: .enrollment)
            again.serial = "F2LXK0ABCDEF"
            again.addedBy = "enrollment"
            let outcome = try store.update { $0.merge(again, now: Self.tuesday) }
            #expect(outcome == .updated)
            let devices = try DeviceStoreOracle.devices(store.path)
            #expect(devices.count == 1)
            #expect(devices[0]["UDID"] as? String == Self.ana)
            #expect(devices[0]["Name"] as? String == "Ana's new name")
            #expect(devices[0]["Model"] as? String == "iPhone12,1", "a model the new record lacks is kept")
            #expect(devices[0]["Serial"] as? String == "F2LXK0ABCDEF")
            #expect(devices[0]["Added"] as? String == "2026-05-28T20:26:40Z")
            #expect(devices[0]["Updated"] as? String == "2026-05-29T20:26:40Z")
            #expect(devices[0]["AddedBy"] as? String == "ana")
            #expect(devices[0]["Source"] as? String == "manual")
        }
    }

    @Test func aChangeThatChangesNothingDoesNotWrite() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let store = DeviceStore(path: folder.path("devices.plist"))
            try store.update { $0.merge(try Self.record(), now: Self.monday) }
            let before = try #require(FileIdentity(path: store.path))
            let outcome = try store.update { $0.merge(try Self.record(), now: Self.tuesday) }
            #expect(outcome == .unchanged)
            #expect(FileIdentity(path: store.path) == before)
        }
    }

    @Test func aChangeThatThrowsWritesNothing() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let store = DeviceStore(path: folder.path("devices.plist"))
            try store.update { $0.merge(try Self.record(), now: Self.monday) }
            let before = folder.snapshot()
            struct Refused: Error {}
            #expect(throws: Refused.self) {
                try store.update { list in
                    list.merge(try Self.record(Self.udid(2)), now: Self.tuesday)
                    throw Refused()
                }
            }
            #expect(folder.snapshot() == before)
        }
    }

    @Test func aRemovedDeviceKeepsItsSeenSignatures() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let store = DeviceStore(path: folder.path("devices.plist"))
            let digest: [UInt8] = Array(repeating: 0xab, count: 32)
            try store.update { list in
                list.merge(try Self.record(), now: Self.monday)
                list.recordSeen(digest: digest, until: Self.tuesday, udid: Self.ana, now: Self.monday)
            }
            let removed = try store.update { $0.remove(udid: Self.ana.lowercased()) }
            #expect(removed?.udid == Self.ana)
            #expect(try store.update { $0.remove(udid: Self.ana) } == nil)
            let root = try DeviceStoreOracle.read(store.path).root
            #expect((root["Devices"] as? [Any])?.isEmpty == true)
            let seen = try #require(root["Seen"] as? [[String: Any]])
            #expect(seen.count == 1)
            #expect(seen.first?["Digest"] as? String == String(repeating: "ab", count: 32))
            #expect(seen.first?["UDID"] as? String == Self.ana)
            #expect(seen.first?["Until"] as? String == "2026-05-29T20:26:40Z")
            #expect(try store.load().hasSeen(digest: digest))
        }
    }

    @Test func seenSignaturesWhoseTimePassedAreDroppedWhenAnotherIsRecorded() throws {
        var list = DeviceList()
        let old: [UInt8] = [1, 2, 3]
        let new: [UInt8] = [4, 5, 6]
        list.recordSeen(digest: old, until: Self.monday, udid: Self.ana, now: Self.monday.addingTimeInterval(-1))
        #expect(list.hasSeen(digest: old))
        list.recordSeen(digest: old, until: Self.monday, udid: Self.ana, now: Self.monday)
        #expect(list.seen.count == 1, "the same digest is recorded once")
        list.recordSeen(digest: new, until: Self.tuesday, udid: Self.ana, now: Self.monday.addingTimeInterval(1))
        #expect(!list.hasSeen(digest: old))
        #expect(list.seenSignature(digest: new)?.until == Self.tuesday.addingTimeInterval(-0.25))
    }

    @Test func keysThisVersionDoesNotKnowAreKeptOnRewrite() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let path = try folder.write(
                "devices.plist",
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                	<key>Team</key><string>QA</string>
                	<key>Version</key><integer>1</integer>
                	<key>Devices</key><array><dict>
                		<key>UDID</key><string>\(Self.ana)</string>
                		<key>Name</key><string>Ana</string>
                		<key>Added</key><date>2026-05-28T20:26:40Z</date>
                		<key>Updated</key><date>2026-05-28T20:26:40Z</date>
                		<key>AddedBy</key><string>ana</string>
                		<key>Source</key><string>import</string>
                		<key>Desk</key><integer>4</integer>
                	</dict></array>
                	<key>Later</key><dict><key>Flag</key><true/></dict>
                </dict>
                </plist>
                """)
            let store = DeviceStore(path: path)
            try store.update { $0.merge(try Self.record(Self.udid(7), name: "Bo"), now: Self.tuesday) }
            let (_, keys, root) = try DeviceStoreOracle.read(path)
            #expect(keys == ["Version", "Devices", "Seen", "Team", "Later"])
            #expect(root["Team"] as? String == "QA")
            #expect((root["Later"] as? [String: Any])?["Flag"] as? Bool == true)
            let devices = try DeviceStoreOracle.devices(path)
            #expect(devices.map { $0["Name"] as? String } == ["Ana", "Bo"])
            #expect(devices[0]["Desk"] as? Int == 4)
            #expect(devices[0]["Source"] as? String == "import")
            #expect(devices[0]["Platform"] as? String == "ios")
        }
    }

    @Test func aNewerStoreVersionIsRefusedAndLeftAlone() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let path = try PropertyList(.dictionary(PlistDictionary([("Version", .integer(PlistInteger(2)))]))).data()
            let store = DeviceStore(path: try folder.write("devices.plist", path))
            let before = folder.snapshot()
            let error = try requireDiagnostic(BuildProblem.self) { try store.update { $0.merge(try Self.record(), now: Self.monday) } }
            #expect(
                error.description == "\(store.path): at 'Version': version 2 is newer than this adhocbuild reads (1): update adhocbuild")
            #expect(folder.snapshot() == before)
        }
    }

    @Test(arguments: [
        ("<key>Devices</key><dict/>", "at 'Devices': expected an array, not a dict"),
        ("<key>Devices</key><array><dict><key>UDID</key><string>xyz</string></dict></array>", "at 'Devices:0': missing 'Source'"),
        (
            "<key>Devices</key><array><dict><key>UDID</key><string>xyz</string><key>Source</key><string>manual</string>"
                + "<key>Name</key><string>A</string><key>Added</key><date>2026-01-01T00:00:00Z</date>"
                + "<key>Updated</key><date>2026-01-01T00:00:00Z</date><key>AddedBy</key><string>a</string></dict></array>",
            "at 'Devices:0:UDID': 'xyz' is not a device UDID"
        ),
        ("<key>Seen</key><array><dict><key>UDID</key><string>x</string></dict></array>", "at 'Seen:0': missing data 'Digest'")
    ])
    func aDamagedStoreIsRefusedNamingTheKeyPath(body: String, message: String) throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let path = try folder.write("devices.plist", "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict>\(body)</dict></plist>")
            let error = try requireDiagnostic(BuildProblem.self) { try DeviceStore(path: path).load() }
            #expect(error.description.hasPrefix("\(path): \(message)"), "\(error)")
        }
    }

    @Test func aUDIDListedTwiceIsRefused() throws {
        var list = DeviceList()
        list.merge(try Self.record(), now: Self.monday)
        var plist = list.plistValue
        if case .dictionary(var root) = plist, case .array(let devices)? = root["Devices"] {
            var second = try #require(devices[0].dictionaryValue)
            second["UDID"] = .string(Self.ana.lowercased())
            root["Devices"] = .array(devices + [.dictionary(second)])
            plist = .dictionary(root)
        }
        let error = try requireDiagnostic(BuildProblem.self) { try DeviceList(plist: plist, file: "d.plist") }
        #expect(error.description == "d.plist: at 'Devices:1:UDID': '\(Self.ana.lowercased())' is listed twice (also at 'Devices:0')")
    }

    @Test func leftoversOfAKilledWriterAreRemovedUnderTheLock() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let dead = try folder.write(Leftover.dead("devices.plist"), "<half")
            let live = try folder.write(try Leftover.live("devices.plist"), "<other")
            let store = DeviceStore(path: folder.path("devices.plist"))
            try store.update { $0.merge(try Self.record(), now: Self.monday) }
            #expect(!FileManager.default.fileExists(atPath: dead))
            #expect(FileManager.default.fileExists(atPath: live))
        }
    }

    /// Twenty threads of this process and four other processes (`adhocbuild devices add`, five times
    /// each) add devices to one store at once: the folder lock serialises them, so every one lands.
    @Test func twentyThreadsAndFourProcessesChangingTheStoreAtOnceLoseNothing() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let store = DeviceStore(path: folder.path("devices.plist"))
            let loop = """
                i=0; while [ $i -lt 5 ]; do "$0" devices add "$1" --udid "$2$i" --name "Process $2$i" || exit 1; i=$((i+1)); done
                """
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 24) { number in
                do {
                    if number < 4 {
                        let prefix = "00008030-00000000000001\(number)"
                        let result = try ProcessResult.run("/bin/sh", ["-c", loop, AdhocBuildBinary.path, store.path, prefix])
                        if result.status != 0 { failures.withLock { $0.append(result.stderrText) } }
                    } else {
                        try store.update { $0.merge(try Self.record(Self.udid(number), name: "Thread \(number)"), now: Self.monday) }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.value.isEmpty)
            let processes = (0..<4).flatMap { number in (0..<5).map { "00008030-00000000000001\(number)\($0)" } }
            let threads = (4..<24).map(Self.udid)
            let listed = try DeviceStoreOracle.udids(store.path)
            #expect(listed.count == 40)
            #expect(Set(listed) == Set(processes + threads))
            #expect(Leftover.names(in: folder.url.path).isEmpty)
        }
    }
}
