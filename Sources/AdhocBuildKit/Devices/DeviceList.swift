import Foundation
import PlistKit
import SystemSupport

/// What the device store (``DeviceStore``, `devices.plist`) holds: the testers' devices, and the
/// signatures of the enrollment answers already accepted, so a captured answer cannot be replayed.
///
/// Keys this version does not know, at the top and in each device, are kept and written back.
public struct DeviceList: Equatable, Sendable {
    /// The store format this version reads and writes; a newer one is refused.
    public static let version = 1

    /// An enrollment answer already accepted: the SHA-256 of its signature, the device it named, and
    /// until when it matters (its challenge's expiry; an answer to an expired challenge is refused anyway).
    public struct SeenSignature: Equatable, Sendable {
        public var digest: [UInt8]
        public var until: Date
        public var udid: String

        public init(digest: [UInt8], until: Date, udid: String) {
            self.digest = digest
            self.until = until
            self.udid = udid
        }
    }

    /// What ``merge(_:now:)`` did.
    public enum MergeOutcome: Equatable, Sendable {
        case added
        case updated
        /// The device was listed with the same name, model, system and serial.
        case unchanged
    }

    /// In the order they were added.
    public var devices: [DeviceRecord]
    public var seen: [SeenSignature]
    /// The top-level keys this version does not know, kept as they were.
    public var otherKeys: PlistDictionary

    public init(devices: [DeviceRecord] = [], seen: [SeenSignature] = [], otherKeys: PlistDictionary = PlistDictionary()) {
        self.devices = devices
        self.seen = seen
        self.otherKeys = otherKeys
    }

    /// The listed device with this UDID (any case).
    public func device(udid: String) -> DeviceRecord? { devices.first { $0.isSameDevice(as: udid) } }

    /// Adds `record`, or, when its UDID (any case) is listed, refreshes the listed one's name, and its
    /// model, system build, serial and signer where `record` has them (and its platform when `record`
    /// is listed as a Mac), setting `updated` to `now` if
    /// anything changed; `added`, `addedBy` and `source` stay those of the first time. Dates are kept
    /// to the second, as the store keeps them.
    @discardableResult
    public mutating func merge(_ record: DeviceRecord, now: Date) -> MergeOutcome {
        let now = Self.wholeSeconds(now)
        guard let index = devices.firstIndex(where: { $0.isSameDevice(as: record.udid) }) else {
            var record = record
            record.added = Self.wholeSeconds(record.added)
            record.updated = Self.wholeSeconds(record.updated)
            devices.append(record)
            return .added
        }
        var listed = devices[index]
        listed.name = record.name
        listed.model = record.model ?? listed.model
        listed.osBuild = record.osBuild ?? listed.osBuild
        listed.serial = record.serial ?? listed.serial
        listed.signerIssuer = record.signerIssuer ?? listed.signerIssuer
        listed.listedAsMac = listed.listedAsMac || record.listedAsMac
        guard listed != devices[index] else { return .unchanged }
        listed.updated = now
        devices[index] = listed
        return .updated
    }

    /// Removes the device with this UDID (any case) and returns it; nil when it is not listed. Its
    /// seen signatures stay, so its old enrollment answer cannot bring it back.
    @discardableResult
    public mutating func remove(udid: String) -> DeviceRecord? {
        guard let index = devices.firstIndex(where: { $0.isSameDevice(as: udid) }) else { return nil }
        return devices.remove(at: index)
    }

    /// Removes the devices with these UDIDs (any case) and returns them; when one is not listed, throws
    /// naming it and `file`, and removes none.
    public mutating func remove(udids: [String], file: String) throws -> [DeviceRecord] {
        if let unknown = udids.first(where: { device(udid: $0) == nil }) {
            throw Diagnostic.build("'\(unknown)' is not listed", file: file)
        }
        return udids.compactMap { remove(udid: $0) }
    }

    /// The accepted answer whose signature has this SHA-256, if any.
    public func seenSignature(digest: [UInt8]) -> SeenSignature? { seen.first { $0.digest == digest } }

    /// Whether an answer whose signature has this SHA-256 was accepted before.
    public func hasSeen(digest: [UInt8]) -> Bool { seenSignature(digest: digest) != nil }

    /// Records an accepted answer's signature digest until `until`, first dropping the entries whose
    /// time passed before `now` (``pruneSeen(now:)``).
    public mutating func recordSeen(digest: [UInt8], until: Date, udid: String, now: Date) {
        pruneSeen(now: now)
        guard !hasSeen(digest: digest) else { return }
        seen.append(SeenSignature(digest: digest, until: Self.wholeSeconds(until), udid: udid))
    }

    /// Drops the seen signatures whose `until` is before `now`.
    public mutating func pruneSeen(now: Date) {
        seen.removeAll { $0.until < now }
    }

    /// `date` without its fraction of a second: what an XML plist keeps.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down))
    }
}
