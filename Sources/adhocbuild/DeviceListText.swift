import AdhocBuildKit
import PlistKit

/// The device list as `devices list` prints it.
enum DeviceListText {
    /// A header, then one line per device in the list's order: UDID, platform, model, the day it was
    /// added and by whom, and its name last (names vary in width); columns padded to line up. Then
    /// the count, per platform.
    static func lines(_ devices: [DeviceRecord]) -> [String] {
        guard !devices.isEmpty else { return ["no devices"] }
        let rows =
            [["UDID", "PLATFORM", "MODEL", "ADDED", "BY", "NAME"]]
            + devices.map { device in
                [
                    device.udid, device.platform.rawValue, device.model ?? "-", String(PlistDate(device.added).iso8601.prefix(10)),
                    device.addedBy, device.name
                ]
            }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            (0..<5).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ") + "  " + row[5]
        }
        let macs = devices.filter { $0.platform == .mac }.count
        lines.append("\(devices.count) device\(devices.count == 1 ? "" : "s") (\(devices.count - macs) ios, \(macs) mac)")
        return lines
    }
}
