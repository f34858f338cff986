import AdhocBuildKit
import Foundation
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

/// UDIDs are taken in the three shapes Apple gives them and refused otherwise, naming the value; the
/// platform follows from the UDID and the model.
@Suite struct DeviceRecordTests {
    static let added = Date(timeIntervalSince1970: 1_780_000_000)

    static func device(_ udid: String, model: String? = nil) throws -> DeviceRecord {
        try DeviceRecord(udid: udid, name: "Ana's iPhone", model: model, added: added, addedBy: "ci", source: .manual)
    }

    @Test(arguments: [
        "00008030-001A2D3C0E12802E", "00008030-001a2d3c0e12802e", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
        "A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90"
    ])
    func theThreeShapesOfAUDIDAreTaken(udid: String) throws {
        #expect(try Self.device(udid).udid == udid)
    }

    @Test(arguments: [
        "", "00008030-001A2D3C0E12802", "00008030001A2D3C0E12802E", "a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
        "g1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "A1B2C3D4-E5F6-0718-293A4B5C6D7E8F90", "00008030-001A2D3C0E12802E ",
        "00008030--01A2D3C0E12802E", "０0008030-001A2D3C0E12802E"
    ])
    func anythingElseIsRefusedNamingTheValue(udid: String) throws {
        let error = try requireDiagnostic(BuildProblem.self) { try Self.device(udid) }
        #expect(error.message.hasPrefix("'\(udid)' is not a device UDID: expected 40 hex digits"))
    }

    @Test func macsAreToldByAUUIDOrAMacModel() throws {
        #expect(try Self.device("A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90").platform == .mac)
        #expect(try Self.device("00008103-001A2D3C0E12802E", model: "Mac14,2").platform == .mac)
        #expect(try Self.device("00008103-001A2D3C0E12802E", model: "MacBookPro18,3").platform == .mac)
        #expect(try Self.device("00008103-001A2D3C0E12802E", model: "iMac21,1").platform == .mac)
        #expect(try Self.device("00008030-001A2D3C0E12802E", model: "iPhone12,1").platform == .ios)
        #expect(try Self.device("00008030-001A2D3C0E12802E").platform == .ios)
        #expect(try Self.device("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", model: "iPad6,11").platform == .ios)
    }
}
