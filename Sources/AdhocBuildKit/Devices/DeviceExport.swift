import Foundation
import PlistKit
import SystemSupport

/// The device list written for others: the tab-separated file Apple's developer portal takes for
/// "Register Multiple Devices", and JSON.
public enum DeviceExport {
    /// The formats `devices export` writes.
    public enum Format: String, Sendable, CaseIterable {
        /// Apple's "Register Multiple Devices" file.
        case tsv
        case json
    }

    /// The longest device name the portal is said to take (zealot's note; not confirmed at Apple):
    /// longer names are cut, with a warning.
    public static let portalNameLimit = 50

    /// The portal's file: the header `Device ID<TAB>Device Name<TAB>Device Platform`, then
    /// `UDID<TAB>name<TAB>ios|mac` per device, sorted by name and then UDID, UTF-8 without a BOM, each
    /// line ending in a newline. Control characters in names (tabs and line ends among them) become
    /// spaces, and names longer than ``portalNameLimit`` are cut; `warnings` tells each cut name.
    public static func portalFile(_ devices: [DeviceRecord]) -> (text: String, warnings: [Diagnostic]) {
        var warnings: [Diagnostic] = []
        var lines = ["Device ID\tDevice Name\tDevice Platform"]
        let sorted = devices.sorted { ($0.name, $0.udid) < ($1.name, $1.udid) }
        for device in sorted {
            var name = String(String.UnicodeScalarView(device.name.unicodeScalars.map(Self.printable)))
            if name.count > portalNameLimit {
                name = String(name.prefix(portalNameLimit))
                warnings.append(
                    Diagnostic.build(
                        "the name of \(device.udid) is longer than \(portalNameLimit) characters, the most Apple's portal takes: "
                            + "cut to '\(name)'", severity: .warning))
            }
            lines.append("\(device.udid)\t\(name)\t\(device.platform.rawValue)")
        }
        return (lines.map { $0 + "\n" }.joined(), warnings)
    }

    /// The devices as a JSON array in the list's order, each an object with `udid`, `name`, `platform`,
    /// `added`, `updated` (ISO 8601, UTC), `addedBy`, `source`, and `model`, `osBuild`, `serial` and
    /// `signerIssuer` when known; keys sorted, so the same list gives the same bytes.
    public static func json(_ devices: [DeviceRecord]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(devices.map(Exported.init)) + Data("\n".utf8)
    }

    /// A space for a control character; anything else as it is.
    private static func printable(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        scalar.properties.generalCategory == .control ? " " : scalar
    }

    /// One device as JSON shows it.
    private struct Exported: Encodable {
        var udid: String
        var name: String
        var model: String?
        var osBuild: String?
        var serial: String?
        var platform: String
        var added: String
        var updated: String
        var addedBy: String
        var source: String
        var signerIssuer: String?

        init(_ device: DeviceRecord) {
            udid = device.udid
            name = device.name
            model = device.model
            osBuild = device.osBuild
            serial = device.serial
            platform = device.platform.rawValue
            added = PlistDate(device.added).iso8601
            updated = PlistDate(device.updated).iso8601
            addedBy = device.addedBy
            source = device.source.rawValue
            signerIssuer = device.signerIssuer
        }
    }
}
