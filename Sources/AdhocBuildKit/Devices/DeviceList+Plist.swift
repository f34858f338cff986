import Foundation
import PlistKit
import SystemSupport

/// The device list as `devices.plist` holds it: `Version`, `Devices` (dictionaries), `Seen`
/// (`Digest`, `Until`, `UDID`), then any other keys as they were read.
extension DeviceList {
    /// The list `value` holds; errors name `file`, the key path and the bad value.
    public init(plist value: PlistValue, file: String) throws {
        guard case .dictionary(var root) = value else {
            throw Diagnostic.build("expected a dictionary, not \(value.kindWithArticle)", file: file, keyPath: "")
        }
        if let version = root.removeValue(forKey: "Version") {
            guard let number = version.integerValue?.int else {
                throw Diagnostic.build("expected an integer, not \(version.kindWithArticle)", file: file, keyPath: "Version")
            }
            guard number <= Self.version else {
                throw Diagnostic.build(
                    "version \(number) is newer than this adhocbuild reads (\(Self.version)): update adhocbuild", file: file,
                    keyPath: "Version")
            }
        }
        let reader = DevicePlistFields(file: file)
        let devices = try reader.array(root.removeValue(forKey: "Devices"), at: "Devices").enumerated().map { index, item in
            try reader.device(item, at: "Devices:\(index)")
        }
        for (index, device) in devices.enumerated() {
            if let first = devices[..<index].firstIndex(where: { $0.isSameDevice(as: device.udid) }) {
                throw Diagnostic.build(
                    "'\(device.udid)' is listed twice (also at 'Devices:\(first)')", file: file, keyPath: "Devices:\(index):UDID")
            }
        }
        let seen = try reader.array(root.removeValue(forKey: "Seen"), at: "Seen").enumerated().map { index, item in
            try reader.seen(item, at: "Seen:\(index)")
        }
        self.init(devices: devices, seen: seen, otherKeys: root)
    }

    /// The plist `devices.plist` holds.
    public var plistValue: PlistValue {
        var root = PlistDictionary()
        root.append("Version", .integer(PlistInteger(Self.version)))
        root.append("Devices", .array(devices.map(\.plistValue)))
        root.append(
            "Seen",
            .array(
                seen.map { entry in
                    .dictionary(
                        PlistDictionary([
                            ("Digest", .data(Data(entry.digest))), ("Until", .date(PlistDate(entry.until))), ("UDID", .string(entry.udid))
                        ]))
                }))
        for (key, value) in otherKeys { root.append(key, value) }
        return .dictionary(root)
    }
}

extension DeviceRecord {
    /// The device's dictionary in `devices.plist`: the known keys in a fixed order, the optional ones
    /// only when set, then the others as they were read.
    public var plistValue: PlistValue {
        var dictionary = PlistDictionary()
        dictionary.append("UDID", .string(udid))
        dictionary.append("Name", .string(name))
        if let model { dictionary.append("Model", .string(model)) }
        if let osBuild { dictionary.append("OSBuild", .string(osBuild)) }
        if let serial { dictionary.append("Serial", .string(serial)) }
        dictionary.append("Platform", .string(platform.rawValue))
        dictionary.append("Added", .date(PlistDate(added)))
        dictionary.append("Updated", .date(PlistDate(updated)))
        dictionary.append("AddedBy", .string(addedBy))
        dictionary.append("Source", .string(source.rawValue))
        if let signerIssuer { dictionary.append("SignerIssuer", .string(signerIssuer)) }
        for (key, value) in otherKeys { dictionary.append(key, value) }
        return .dictionary(dictionary)
    }
}

/// Reads the typed fields of the store (and of the lists `devices import` reads), each error naming
/// the file and the key path.
struct DevicePlistFields {
    let file: String

    func fail(_ message: String, at keyPath: String) -> Diagnostic { Diagnostic.build(message, file: file, keyPath: keyPath) }

    func array(_ value: PlistValue?, at keyPath: String) throws -> [PlistValue] {
        guard let value else { return [] }
        guard let items = value.arrayValue else { throw fail("expected an array, not \(value.kindWithArticle)", at: keyPath) }
        return items
    }

    func dictionary(_ value: PlistValue, at keyPath: String) throws -> PlistDictionary {
        guard let dictionary = value.dictionaryValue else { throw fail("expected a dict, not \(value.kindWithArticle)", at: keyPath) }
        return dictionary
    }

    func string(_ dictionary: inout PlistDictionary, _ key: String, at keyPath: String) throws -> String {
        guard let value = try optionalString(&dictionary, key, at: keyPath) else { throw fail("missing '\(key)'", at: keyPath) }
        return value
    }

    func optionalString(_ dictionary: inout PlistDictionary, _ key: String, at keyPath: String) throws -> String? {
        guard let value = dictionary.removeValue(forKey: key) else { return nil }
        guard let string = value.stringValue else {
            throw fail("expected a string, not \(value.kindWithArticle)", at: keyPath + ":" + key)
        }
        return string
    }

    func date(_ dictionary: inout PlistDictionary, _ key: String, at keyPath: String) throws -> Date {
        guard let value = dictionary.removeValue(forKey: key) else { throw fail("missing '\(key)'", at: keyPath) }
        guard case .date(let date) = value else { throw fail("expected a date, not \(value.kindWithArticle)", at: keyPath + ":" + key) }
        return date.date
    }

    func device(_ value: PlistValue, at keyPath: String) throws -> DeviceRecord {
        var fields = try dictionary(value, at: keyPath)
        let udid = try string(&fields, "UDID", at: keyPath)
        let sourceText = try string(&fields, "Source", at: keyPath)
        guard let source = DeviceRecord.Source(rawValue: sourceText) else {
            throw fail("'\(sourceText)' is not a source: expected enrollment, manual or import", at: keyPath + ":Source")
        }
        // Told by the UDID and the model, and written for other readers; read for the Mac it cannot tell.
        let platform = try optionalString(&fields, "Platform", at: keyPath)
        do {
            var record = try DeviceRecord(
                udid: udid, name: try string(&fields, "Name", at: keyPath), model: try optionalString(&fields, "Model", at: keyPath),
                osBuild: try optionalString(&fields, "OSBuild", at: keyPath), serial: try optionalString(&fields, "Serial", at: keyPath),
                added: try date(&fields, "Added", at: keyPath), updated: try date(&fields, "Updated", at: keyPath),
                addedBy: try string(&fields, "AddedBy", at: keyPath), source: source,
                signerIssuer: try optionalString(&fields, "SignerIssuer", at: keyPath))
            record.otherKeys = fields
            record.listedAsMac = platform == DeviceRecord.Platform.mac.rawValue && record.platform == .ios
            return record
        } catch let error as Diagnostic where error.file == nil {
            throw error.inFile(file).within(.keyPath(keyPath + ":UDID"))
        }
    }

    func seen(_ value: PlistValue, at keyPath: String) throws -> DeviceList.SeenSignature {
        var fields = try dictionary(value, at: keyPath)
        guard case .data(let digest)? = fields.removeValue(forKey: "Digest") else { throw fail("missing data 'Digest'", at: keyPath) }
        return DeviceList.SeenSignature(
            digest: Array(digest), until: try date(&fields, "Until", at: keyPath), udid: try string(&fields, "UDID", at: keyPath))
    }
}
