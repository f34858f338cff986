import Foundation
import PlistKit
import SystemSupport

/// Device lists kept elsewhere, read for `devices import`:
/// - Apple's "Register Multiple Devices" file: tab-separated `Device ID`, `Device Name` and, in newer
///   files, `Device Platform` (`ios` or `mac`), one device a line, a header line optional (what
///   `devices export` writes, and what the portal's bulk upload takes);
/// - Xcode's `.deviceids` property list: `Device UDIDs`, an array of dictionaries with
///   `deviceIdentifier` and `deviceName` (and `devicePlatform`);
/// - `devices export --format json`: an array of objects with `udid` and `name` (and `model`,
///   `osBuild`, `serial`);
/// - another adhocbuild device list (`devices.plist`).
///
/// A file is read whole before anything is merged: a bad UDID or name, or a UDID listed twice, fails
/// the import, naming the file and the line (or key path).
public enum DeviceImport {
    /// One device read from a file.
    public struct Entry: Equatable, Sendable {
        public var udid: String
        public var name: String
        public var model: String?
        public var osBuild: String?
        public var serial: String?
        /// The file said `mac` (what an Apple-silicon Mac's UDID cannot tell).
        public var isMac = false
        /// Where the device was in its file (`line 3`, `at 'Device UDIDs:2'`), for messages.
        public var place: Diagnostic.Place

        /// The record to merge into the list: source `import`, added now by `addedBy`.
        public func record(now: Date, addedBy: String) throws -> DeviceRecord {
            var record = try DeviceRecord(
                udid: udid, name: name, model: model, osBuild: osBuild, serial: serial, added: now, addedBy: addedBy, source: .import)
            record.listedAsMac = isMac && record.platform == .ios
            return record
        }
    }

    /// The largest file read: far more than the portal's 100 devices of each kind a year.
    public static let sizeLimit = 16 << 20

    /// Reads the file at `path`.
    public static func read(_ path: String) throws -> [Entry] {
        try read(FileIO.read(path, limit: sizeLimit), file: path)
    }

    /// Reads `data`, detecting its kind: a property list or JSON when it starts (after a byte-order mark
    /// and white space) with `<`, `[`, `{` or `bplist`; the portal's tab-separated text otherwise.
    public static func read(_ data: Data, file: String) throws -> [Entry] {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        let entries: [Entry]
        if first.map({ [UInt8(ascii: "<"), UInt8(ascii: "["), UInt8(ascii: "{")].contains($0) }) == true
            || bytes.starts(with: Array("bplist".utf8))
        {
            entries = try plistEntries(inFile(file) { try PropertyList(data: data).value }, file: file)
        } else {
            guard let text = String(data: Data(bytes), encoding: .utf8) else {
                throw Diagnostic.build("is not UTF-8 text, a property list or JSON", file: file)
            }
            entries = try textEntries(text, file: file)
        }
        try checkEntries(entries, file: file)
        return entries
    }

    /// Every entry's UDID and name valid, and no UDID (in any case) twice.
    private static func checkEntries(_ entries: [Entry], file: String) throws {
        for (index, entry) in entries.enumerated() {
            do {
                try DeviceRecord.validate(udid: entry.udid)
                try DeviceRecord.validate(name: entry.name)
            } catch let error as Diagnostic {
                throw error.inFile(file).within(entry.place)
            }
            if let earlier = entries[..<index].first(where: { $0.udid.caseInsensitiveCompare(entry.udid) == .orderedSame }) {
                throw Diagnostic(
                    .build(.invalid), "'\(entry.udid)' is listed twice (also at \(earlier.place.text))", file: file, places: [entry.place])
            }
        }
    }

    /// The portal's file: lines of tab-separated fields; a first line whose first field is
    /// `Device ID` (or `deviceIdentifier`) is the header; empty lines are skipped; `\n`, `\r\n` and `\r` end lines.
    private static func textEntries(_ text: String, file: String) throws -> [Entry] {
        var entries: [Entry] = []
        var sawLine = false
        // `\r\n` is one Character, and a new line as `isNewline` says.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { continue }
            let place = Diagnostic.Place.text("line \(index + 1)")
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            defer { sawLine = true }
            if !sawLine, ["device id", "deviceidentifier"].contains(fields[0].lowercased()) { continue }
            guard fields.count >= 2, fields.count <= 3 else {
                throw Diagnostic(
                    .build(.invalid),
                    "expected a UDID, a tab, a name and optionally a tab and ios or mac; found \(fields.count) field\(fields.count == 1 ? "" : "s")",
                    file: file, places: [place])
            }
            var entry = Entry(udid: fields[0], name: fields[1], place: place)
            if fields.count == 3 { entry.isMac = try isMac(fields[2], place: place, file: file) }
            entries.append(entry)
        }
        return entries
    }

    /// Whether a `Device Platform` field (`ios` or `mac`, any case; `MAC_OS` as App Store Connect
    /// spells it; empty for ios) says Mac.
    private static func isMac(_ platform: String, place: Diagnostic.Place, file: String) throws -> Bool {
        switch platform.lowercased() {
        case "ios", "": return false
        case "mac", "macos", "mac_os": return true
        default:
            throw Diagnostic(.build(.invalid), "'\(platform)' is not a device platform: expected ios or mac", file: file, places: [place])
        }
    }

    /// Xcode's `.deviceids` (`Device UDIDs`), an adhocbuild list (`Devices`) or the JSON export (an array).
    private static func plistEntries(_ value: PlistValue, file: String) throws -> [Entry] {
        func fail(_ message: String, _ keyPath: String) -> Diagnostic { Diagnostic.build(message, file: file, keyPath: keyPath) }
        switch value {
        case .array(let items):
            return try items.enumerated().map { index, item in
                try entry(
                    item, at: "\(index)",
                    keys: (udid: "udid", name: "name", platform: "platform", model: "model", osBuild: "osBuild", serial: "serial"),
                    file: file)
            }
        case .dictionary(let root):
            if let list = root["Device UDIDs"] {
                guard let items = list.arrayValue else { throw fail("expected an array, not \(list.kindWithArticle)", "Device UDIDs") }
                return try items.enumerated().map { index, item in
                    try entry(
                        item, at: "Device UDIDs:\(index)",
                        keys: (
                            udid: "deviceIdentifier", name: "deviceName", platform: "devicePlatform", model: nil, osBuild: nil, serial: nil
                        ),
                        file: file)
                }
            }
            if root["Devices"] != nil {
                return try DeviceList(plist: value, file: file).devices.enumerated().map { index, device in
                    Entry(
                        udid: device.udid, name: device.name, model: device.model, osBuild: device.osBuild, serial: device.serial,
                        isMac: device.platform == .mac, place: .keyPath("Devices:\(index)"))
                }
            }
            throw fail("holds neither 'Device UDIDs' (Xcode's .deviceids) nor 'Devices' (an adhocbuild device list)", "")
        default:
            throw fail("expected a device list, not \(value.kindWithArticle)", "")
        }
    }

    /// The names of one file kind's fields (nil: the kind has none).
    private typealias Keys = (udid: String, name: String, platform: String, model: String?, osBuild: String?, serial: String?)

    /// One device's dictionary at `keyPath`, its fields named by `keys`.
    private static func entry(_ value: PlistValue, at keyPath: String, keys: Keys, file: String) throws -> Entry {
        guard var fields = value.dictionaryValue else {
            throw Diagnostic.build("expected a dictionary, not \(value.kindWithArticle)", file: file, keyPath: keyPath)
        }
        let reader = DevicePlistFields(file: file)
        func string(_ key: String?) throws -> String? { try key.flatMap { try reader.optionalString(&fields, $0, at: keyPath) } }
        let platform = try string(keys.platform)
        return Entry(
            udid: try reader.string(&fields, keys.udid, at: keyPath).trimmingCharacters(in: .whitespaces),
            name: try reader.string(&fields, keys.name, at: keyPath).trimmingCharacters(in: .whitespaces), model: try string(keys.model),
            osBuild: try string(keys.osBuild), serial: try string(keys.serial),
            isMac: try platform.map { try isMac($0, place: .keyPath(keyPath + ":" + keys.platform), file: file) } ?? false,
            place: .keyPath(keyPath))
    }
}
