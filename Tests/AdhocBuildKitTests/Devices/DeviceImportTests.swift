import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

/// Lists kept elsewhere read for `devices import`: the portal's tab-separated file in its variants,
/// Xcode's `.deviceids` written by Python's plistlib, the JSON export and a device list read back
/// from what export wrote; bad lines named by file and line.
@Suite struct DeviceImportTests {
    static let iphone = "00008030-001A2D3C0E12802E"
    static let siliconMac = "00008103-000A11223344556E"
    static let intelMac = "A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90"
    static let ipad = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

    static func read(_ text: String) throws -> [DeviceImport.Entry] { try DeviceImport.read(Data(text.utf8), file: "in.txt") }

    static func failure(_ text: String) -> Diagnostic? {
        do {
            _ = try read(text)
            return nil
        } catch let error as Diagnostic {
            return error
        } catch {
            return nil
        }
    }

    @Test func thePortalFileIsReadWithOrWithoutItsHeaderPlatformColumnByteOrderMarkAndCRLF() throws {
        let variants = [
            "Device ID\tDevice Name\tDevice Platform\n\(Self.iphone)\tAna's iPhone\tios\n\(Self.siliconMac)\tStudio\tmac\n",
            "\u{FEFF}Device ID\tDevice Name\r\n\(Self.iphone)\tAna's iPhone\r\n\r\n\(Self.siliconMac)\tStudio\tMAC\r\n",
            "\(Self.iphone) \t Ana's iPhone \n\n\(Self.siliconMac)\tStudio\tmac",
            "deviceIdentifier\tdeviceName\n\(Self.iphone)\tAna's iPhone\t\n\(Self.siliconMac)\tStudio\tMAC_OS\n"
        ]
        for text in variants {
            let entries = try Self.read(text)
            #expect(entries.map(\.udid) == [Self.iphone, Self.siliconMac], "\(text.debugDescription)")
            #expect(entries.map(\.name) == ["Ana's iPhone", "Studio"], "\(text.debugDescription)")
            #expect(entries.map(\.isMac) == [false, true], "\(text.debugDescription)")
        }
    }

    @Test func anAppleSiliconMacListedAsMacStaysAMacInTheListAndItsExport() throws {
        let entries = try Self.read("\(Self.siliconMac)\tStudio\tmac\n\(Self.iphone)\tPhone\n")
        let records = try entries.map { try $0.record(now: Date(timeIntervalSince1970: 1_780_000_000), addedBy: "ana") }
        #expect(records.map(\.platform) == [.mac, .ios])
        #expect(records.allSatisfy { $0.source == .import && $0.addedBy == "ana" })
        // Through the store's plist and back: the platform the UDID cannot tell is kept.
        let list = DeviceList(devices: records)
        let again = try DeviceList(plist: list.plistValue, file: "devices.plist")
        #expect(again.devices.map(\.platform) == [.mac, .ios])
        #expect(DeviceExport.portalFile(again.devices).text.contains("\(Self.siliconMac)\tStudio\tmac\n"))
    }

    @Test func xcodesDeviceIdsFileWrittenByPlistlibIsRead() throws {
        let python = try #require(ProcessResult.which("python3"))
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            for format in ["FMT_XML", "FMT_BINARY"] {
                let path = folder.path("devices-\(format).deviceids")
                let script = """
                    import plistlib, sys
                    devices = [{'deviceIdentifier': '\(Self.ipad)', 'deviceName': 'Old iPad'},
                               {'deviceIdentifier': '\(Self.intelMac)', 'deviceName': 'Build Mac', 'devicePlatform': 'mac'}]
                    plistlib.dump({'Device UDIDs': devices}, open(sys.argv[1], 'wb'), fmt=plistlib.\(format))
                    """
                let run = try ProcessResult.run(python, ["-c", script, path])
                try #require(run.status == 0, "\(run.stderrText)")
                let entries = try DeviceImport.read(path)
                #expect(entries.map(\.udid) == [Self.ipad, Self.intelMac])
                #expect(entries.map(\.name) == ["Old iPad", "Build Mac"])
                #expect(entries.map(\.place) == [.keyPath("Device UDIDs:0"), .keyPath("Device UDIDs:1")])
            }
        }
    }

    @Test func whatExportWritesIsReadBackWithEveryField() throws {
        let added = Date(timeIntervalSince1970: 1_780_000_000)
        let devices = [
            try DeviceRecord(
                udid: Self.iphone, name: "Zoë's iPhone", model: "iPhone15,2", osBuild: "21A329", serial: "F2LX", added: added,
                addedBy: "enrollment", source: .enrollment),
            try DeviceRecord(udid: Self.intelMac, name: "Build Mac", added: added, addedBy: "ana", source: .manual)
        ]
        let json = try DeviceImport.read(DeviceExport.json(devices), file: "devices.json")
        #expect(json.map(\.udid) == [Self.iphone, Self.intelMac])
        #expect(json[0].model == "iPhone15,2" && json[0].osBuild == "21A329" && json[0].serial == "F2LX" && json[0].name == "Zoë's iPhone")
        #expect(json.map(\.isMac) == [false, true])
        let tsv = try DeviceImport.read(Data(DeviceExport.portalFile(devices).text.utf8), file: "portal.txt")
        #expect(Set(tsv.map(\.udid)) == [Self.iphone, Self.intelMac])
        let store = try PropertyList.encode(DeviceList(devices: devices).plistValue, format: .xml)
        let listed = try DeviceImport.read(store, file: "other/devices.plist")
        #expect(listed.map(\.udid) == [Self.iphone, Self.intelMac] && listed[0].model == "iPhone15,2")
    }

    @Test(arguments: [
        ("\(iphone)\tA\nnot-a-udid\tB\n", "in.txt: line 2: 'not-a-udid' is not a device UDID"),
        ("\(iphone)\tA\n\n\(iphone.lowercased())\tB\n", "in.txt: line 3: '\(iphone.lowercased())' is listed twice (also at line 1)"),
        ("\(iphone)\n", "in.txt: line 1: expected a UDID, a tab, a name and optionally a tab and ios or mac; found 1 field"),
        (
            "\(iphone)\tA\tios\textra\n",
            "in.txt: line 1: expected a UDID, a tab, a name and optionally a tab and ios or mac; found 4 fields"
        ),
        ("\(iphone)\tA\twatch\n", "in.txt: line 1: 'watch' is not a device platform: expected ios or mac"),
        ("\(iphone)\t\n", "in.txt: line 1: a device name cannot be empty"),
        ("\(iphone)\tA\u{7}B\n", "in.txt: line 1: 'A\\u{07}B' is not a device name: it holds a control character"),
        ("{\"a\": 1}", "in.txt: at the root: holds neither 'Device UDIDs' (Xcode's .deviceids) nor 'Devices' (an adhocbuild device list)"),
        ("[{\"udid\": 3, \"name\": \"A\"}]", "in.txt: at '0:udid': expected a string, not an integer"),
        ("[{\"name\": \"A\"}]", "in.txt: at '0': missing 'udid'"),
        ("{\"Device UDIDs\": 1}", "in.txt: at 'Device UDIDs': expected an array, not an integer"),
        ("[1]", "in.txt: at '0': expected a dictionary, not an integer"),
        ("<plist><string>x</string></plist>", "in.txt: at the root: expected a device list, not a string")
    ])
    func aBadListIsRefusedNamingTheFileAndTheLineOrKeyPath(text: String, message: String) throws {
        FuzzSeeds.export(Data(text.utf8), harness: "device-list", name: message)
        let error = try #require(Self.failure(text), "\(text.debugDescription) was read")
        #expect(error.code == .build(.invalid) || error.is(PlistProblem.self), "\(error)")
        #expect(error.description.hasPrefix(message), "\(error.description)")
    }

    @Test func bytesThatAreNotUTF8AreRefused() throws {
        #expect(throws: Diagnostic.build("is not UTF-8 text, a property list or JSON", file: "in.txt")) {
            try DeviceImport.read(Data([0xFF, 0xFE, 0x41]), file: "in.txt")
        }
    }

    @Test func aMalformedPropertyListNamesTheFile() throws {
        let error = try #require(Self.failure("<plist><dict><key>Device UDIDs</key></plist>"))
        #expect(error.file == "in.txt" && error.is(PlistProblem.self), "\(error)")
    }
}
