import Foundation
import PlistKit
import SystemSupport

/// One tester's device as the device list (``DeviceList``) keeps it: its UDID, what it is, and who
/// added it when.
///
/// In the store (`devices.plist`) a device is a dictionary with the keys `UDID`, `Name`, `Model`,
/// `OSBuild`, `Serial`, `Platform`, `Added`, `Updated`, `AddedBy`, `Source` and `SignerIssuer`; keys
/// this version does not know are kept in ``otherKeys`` and written back.
public struct DeviceRecord: Equatable, Sendable {
    /// The platform Apple's portal registers a device for (the `Device Platform` column of its
    /// "Register Multiple Devices" file).
    public enum Platform: String, Sendable, CaseIterable {
        case ios
        case mac
    }

    /// How the device came onto the list.
    public enum Source: String, Sendable, CaseIterable {
        /// The device installed the enrollment profile and its signed answer was received.
        case enrollment
        /// `adhocbuild devices add`.
        case manual
        /// Read from another list.
        case `import`
    }

    /// As the device gave it, in any case: 40 hex digits (iPhones before the XS), `XXXXXXXX-XXXXXXXXXXXXXXXX`
    /// (newer iPhones and Apple-silicon Macs) or a UUID (Intel Macs). Compared case-insensitively.
    public var udid: String
    /// The name the tester gave the device (`DEVICE_NAME`), or the one given to `devices add`.
    public var name: String
    /// The hardware model (`PRODUCT`): `iPhone15,2`, `Mac14,2`.
    public var model: String?
    /// The system's build (`VERSION`): `21A329`.
    public var osBuild: String?
    public var serial: String?
    public var added: Date
    /// When a field last changed (the enrollment again, or `devices add` again).
    public var updated: Date
    /// `enrollment` for a device that enrolled itself; the user who ran `devices add` otherwise.
    public var addedBy: String
    public var source: Source
    /// The common name of the certificate that issued the device's signing certificate, for an enrolled device.
    public var signerIssuer: String?
    /// The keys of the device's dictionary this version does not know, kept as they were.
    public var otherKeys = PlistDictionary()
    /// Set when a list said `mac` of a device whose UDID and model alone say iPhone (an Apple-silicon
    /// Mac whose model is not known): the one platform ``platform`` cannot tell by itself.
    public var listedAsMac = false

    /// A device; throws when `udid` is not a device UDID (``validate(udid:)``).
    public init(
        udid: String, name: String, model: String? = nil, osBuild: String? = nil, serial: String? = nil, added: Date,
        updated: Date? = nil, addedBy: String, source: Source, signerIssuer: String? = nil
    ) throws {
        try Self.validate(udid: udid)
        self.udid = udid
        self.name = name
        self.model = model
        self.osBuild = osBuild
        self.serial = serial
        self.added = added
        self.updated = updated ?? added
        self.addedBy = addedBy
        self.source = source
        self.signerIssuer = signerIssuer
    }

    /// `mac` for a UUID-form UDID (an Intel Mac), a Mac model (`Mac14,2`, `MacBookPro18,3`,
    /// `Macmini9,1`, `iMac21,1`: Apple-silicon Macs have UDIDs shaped like an iPhone's) or a device
    /// ``listedAsMac``; `ios` otherwise.
    public var platform: Platform {
        if UDIDForm(udid) == .uuid || listedAsMac { return .mac }
        if let model, model.hasPrefix("Mac") || model.hasPrefix("iMac") { return .mac }
        return .ios
    }

    /// Whether `other` is the same device: the UDIDs compared regardless of case.
    public func isSameDevice(as other: String) -> Bool { udid.caseInsensitiveCompare(other) == .orderedSame }

    /// Throws when `name` is empty or holds a control character (a tab or a line end would break
    /// the portal's tab-separated file, and XML cannot hold most of the others), naming the value.
    public static func validate(name: String) throws {
        if name.isEmpty { throw Diagnostic.build("a device name cannot be empty") }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Diagnostic.build("'\(name.debugDescription.dropFirst().dropLast())' is not a device name: it holds a control character")
        }
    }

    /// Throws unless `udid` has one of the three shapes Apple gives UDIDs, naming the bad value.
    public static func validate(udid: String) throws {
        guard UDIDForm(udid) != nil else {
            throw Diagnostic.build(
                "'\(udid)' is not a device UDID: expected 40 hex digits, 8 and 16 hex digits joined by '-' "
                    + "(00008030-001A2D3C0E12802E) or a Mac's UUID (8-4-4-4-12 hex digits)")
        }
    }
}

/// The three shapes of a UDID.
enum UDIDForm {
    /// 40 hex digits: iPhones and iPads before 2018.
    case legacy
    /// `XXXXXXXX-XXXXXXXXXXXXXXXX`: iPhone XS and later, Apple-silicon Macs.
    case chipAndECID
    /// `8-4-4-4-12` hex digits: Intel Macs.
    case uuid

    init?(_ udid: String) {
        let groups = udid.split(separator: "-", omittingEmptySubsequences: false).map(\.utf8)
        guard groups.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIHexDigit) }) else { return nil }
        switch groups.map(\.count) {
        case [40]: self = .legacy
        case [8, 16]: self = .chipAndECID
        case [8, 4, 4, 4, 12]: self = .uuid
        default: return nil
        }
    }
}

extension UInt8 {
    fileprivate var isASCIIHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
