import Foundation
import SystemSupport

extension EnrollmentReceiver {
    /// Why a request was refused: each has its status and a log line that starts with the reason's name.
    enum Refusal: Error, Equatable {
        /// Not a POST: 405.
        case method(String)
        /// Not `application/pkcs7-signature`.
        case contentType(String)
        /// No length, too long, or a body of another length.
        case length(String)
        /// Not a CMS SignedData of one device, or its chain or signature does not verify.
        case signature(String)
        /// The signed content is not the plist a device sends.
        case content(String)
        /// The UDID is not of a form Apple uses (the message says which value and what was expected).
        case udid(String)
        /// The challenge is not ours, not for this profile, or expired.
        case challenge(String, udid: String)
        /// The same signed reply was received before, for a device not listed with the same data.
        case replayed(udid: String)
        /// The store could not be read or written: 500.
        case store(String)

        static let logPrefix = "adhocbuild devices receive: "

        var status: Int {
            switch self {
            case .method: return 405
            case .store: return 500
            default: return 400
            }
        }

        /// The reason's name and what exactly was wrong.
        var text: String {
            switch self {
            case .method(let method): return "method \(method.isEmpty ? "(none)" : method): only POST is accepted"
            case .contentType(let type):
                return "content type \(type.isEmpty ? "(none)" : "\"\(type)\""): not \(EnrollmentReceiver.contentType)"
            case .length(let what): return "length: \(what)"
            case .signature(let what): return "signature: \(what)"
            case .content(let what): return "content: \(what)"
            case .udid(let what): return "udid: \(what)"
            case .challenge(let what, let udid): return "challenge: \(what) (\(udid))"
            case .replayed(let udid): return "replayed: this signed reply was received before (\(udid))"
            case .store(let what): return "store: \(what)"
            }
        }

        var response: EnrollmentResponse {
            let shown = UntrustedText.line(text)
            return EnrollmentResponse(
                status: status, body: status == 500 ? "The device list could not be updated." : shown,
                logLine: Self.logPrefix + "\(status) " + shown)
        }
    }
}
