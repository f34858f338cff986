import Foundation
import PlistKit
import SystemSupport

/// What an iPhone sends back to a Profile Service, read from the signed content: an XML plist dict whose
/// values are all strings of at most ``maximumValueBytes`` bytes, with `UDID` and `CHALLENGE`, and the
/// other attributes asked for (`DEVICE_NAME`, `PRODUCT`, `VERSION`, `SERIAL`) when the device gave them.
struct DeviceReply: Sendable, Equatable {
    static let maximumValueBytes = 256
    static let limits = PlistLimits(maxDepth: 4, maxValues: 64, maxInputSize: 64 << 10)

    var udid: String
    var challenge: String
    /// `DEVICE_NAME`, else `PRODUCT`, else "unnamed device".
    var name: String
    var product: String?
    var version: String?
    var serial: String?

    /// Reads `content`; throws ``EnrollmentReceiver/Refusal/content(_:)``, or ``EnrollmentReceiver/Refusal/udid(_:)`` for
    /// a UDID not of a shape Apple gives (``DeviceRecord/validate(udid:)``).
    init(content: [UInt8]) throws {
        let value: PlistValue
        do { value = try XMLPlistReader(limits: Self.limits).read(Data(content)) } catch {
            throw EnrollmentReceiver.Refusal.content("not an XML plist: \(error)")
        }
        guard let dictionary = value.dictionaryValue else {
            throw EnrollmentReceiver.Refusal.content("the plist is \(value.kindWithArticle), not a dict")
        }
        var strings: [String: String] = [:]
        for (key, entry) in dictionary {
            guard let text = entry.stringValue else {
                throw EnrollmentReceiver.Refusal.content("\(key) is \(entry.kindWithArticle), not a string")
            }
            guard text.utf8.count <= Self.maximumValueBytes else {
                throw EnrollmentReceiver.Refusal.content("\(key) is \(text.utf8.count) bytes, more than \(Self.maximumValueBytes)")
            }
            strings[key] = text
        }
        guard let udid = strings["UDID"] else { throw EnrollmentReceiver.Refusal.content("no UDID") }
        do { try DeviceRecord.validate(udid: udid) } catch let error as Diagnostic { throw EnrollmentReceiver.Refusal.udid(error.message) }
        guard let challenge = strings["CHALLENGE"] else { throw EnrollmentReceiver.Refusal.content("no CHALLENGE (\(udid))") }
        self.udid = udid
        self.challenge = challenge
        product = strings["PRODUCT"]
        version = strings["VERSION"]
        serial = strings["SERIAL"]
        name = strings["DEVICE_NAME"] ?? strings["PRODUCT"] ?? "unnamed device"
        do { try DeviceRecord.validate(name: name) } catch let error as Diagnostic {
            throw EnrollmentReceiver.Refusal.content("DEVICE_NAME: \(error.message) (\(udid))")
        }
    }
}
