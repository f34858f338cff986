import AdhocBuildKit
import Foundation
import SystemSupport
import TestSupport
import Testing

/// Apple's "Register Multiple Devices" file, byte for byte: header, tabs, sorted by name, names made
/// safe for the tab-separated format and cut to the portal's length; and the JSON export.
@Suite struct DeviceExportTests {
    static let added = Date(timeIntervalSince1970: 1_780_000_000)

    static func device(_ udid: String, _ name: String, model: String? = nil) throws -> DeviceRecord {
        try DeviceRecord(udid: udid, name: name, model: model, added: added, addedBy: "ana", source: .manual)
    }

    @Test func thePortalFileIsExactlyTheHeaderThenOneTabSeparatedLinePerDeviceSortedByName() throws {
        let devices = [
            try Self.device("00008030-001A2D3C0E12802E", "Zoë's iPhone"),
            try Self.device("A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90", "Build Mac"),
            try Self.device("00008103-001A2D3C0E12802E", "Build Mac", model: "Mac14,2"),
            try Self.device("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "Ana's iPad")
        ]
        let (text, warnings) = DeviceExport.portalFile(devices)
        #expect(warnings.isEmpty)
        #expect(
            Array(text.utf8)
                == Array(
                    ("Device ID\tDevice Name\tDevice Platform\n" + "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678\tAna's iPad\tios\n"
                        + "00008103-001A2D3C0E12802E\tBuild Mac\tmac\n" + "A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90\tBuild Mac\tmac\n"
                        + "00008030-001A2D3C0E12802E\tZoë's iPhone\tios\n").utf8))
        #expect(text.utf8.first == UInt8(ascii: "D"), "no byte order mark")
    }

    @Test func tabsLineEndsAndOtherControlCharactersInNamesBecomeSpaces() throws {
        var device = try Self.device("00008030-001A2D3C0E12802E", "x")
        device.name = "Ana\tB\r\nC\u{7}D\u{85}E"
        let (text, _) = DeviceExport.portalFile([device])
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 3)
        #expect(text.hasSuffix("00008030-001A2D3C0E12802E\tAna B  C D E\tios\n"))
    }

    @Test func namesLongerThanThePortalTakesAreCutToFiftyCharactersWithAWarning() throws {
        let long = String(repeating: "é", count: 49) + "abc"
        let fifty = String(repeating: "x", count: 50)
        let (text, warnings) = DeviceExport.portalFile([
            try Self.device("00008030-001A2D3C0E12802E", long), try Self.device("00008030-001A2D3C0E12802F", fifty)
        ])
        let cut = String(repeating: "é", count: 49) + "a"
        #expect(text.contains("00008030-001A2D3C0E12802E\t\(cut)\tios\n"))
        #expect(text.contains("00008030-001A2D3C0E12802F\t\(fifty)\tios\n"))
        #expect(warnings.count == 1)
        #expect(warnings.first?.severity == .warning)
        #expect(
            warnings.first?.description
                == "the name of 00008030-001A2D3C0E12802E is longer than 50 characters, the most Apple's portal takes: cut to '\(cut)'")
    }

    @Test func jsonHasEveryKnownFieldWithDatesInISO8601() throws {
        var device = try Self.device("00008030-001A2D3C0E12802E", "Ana", model: "iPhone12,1")
        device.serial = "F2LXK0"
        device.signerIssuer = "Apple iPhone Device CA"
        let data = try DeviceExport.json([device, try Self.device("A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90", "Mac")])
        let objects = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        #expect(objects.count == 2)
        #expect(objects[0]["udid"] as? String == "00008030-001A2D3C0E12802E")
        #expect(objects[0]["model"] as? String == "iPhone12,1")
        #expect(objects[0]["serial"] as? String == "F2LXK0")
        #expect(objects[0]["signerIssuer"] as? String == "Apple iPhone Device CA")
        #expect(objects[0]["added"] as? String == "2026-05-28T20:26:40Z")
        #expect(objects[0]["platform"] as? String == "ios")
        #expect(objects[1]["platform"] as? String == "mac")
        #expect(objects[1]["model"] == nil)
        #expect(data.last == UInt8(ascii: "\n"))
    }
}
