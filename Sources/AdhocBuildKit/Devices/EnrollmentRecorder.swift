import CodeSign
import Foundation

/// Adds an accepted device reply to the device list (``DeviceStore``, under its lock), and refuses a reply
/// whose signature was accepted before, unless it repeats exactly what the list holds for that device.
struct EnrollmentRecorder {
    enum Outcome: Equatable {
        /// Added or updated, and the signature recorded.
        case stored
        /// A reply seen before that repeats what the list holds for its device: nothing written.
        case alreadyRegistered
    }

    var store: String

    func record(_ reply: DeviceReply, report: SignedDataReport, expires: Date, now: Date) throws -> Outcome {
        let record = try DeviceRecord(
            udid: reply.udid, name: reply.name, model: reply.product, osBuild: reply.version, serial: reply.serial, added: now,
            addedBy: DeviceRecord.Source.enrollment.rawValue, source: .enrollment, signerIssuer: report.signerIssuer)
        return try DeviceStore(path: store).update { (list: inout DeviceList) throws -> Outcome in
            if list.hasSeen(digest: report.signatureDigest) {
                // The same phone installing the same profile twice may send the same bytes (a deterministic
                // signature); a capture replayed after the device changed or was removed is refused.
                var trial = list
                guard list.device(udid: reply.udid) != nil, trial.merge(record, now: now) == .unchanged else {
                    throw EnrollmentReceiver.Refusal.replayed(udid: reply.udid)
                }
                return .alreadyRegistered
            }
            list.merge(record, now: now)
            list.recordSeen(digest: report.signatureDigest, until: expires, udid: reply.udid, now: now)
            return .stored
        }
    }
}
