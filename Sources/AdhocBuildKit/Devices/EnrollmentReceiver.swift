import CodeSign
import Foundation
import Manifest
import PlistKit
import SystemSupport

/// The receiving end of an enrollment (`devices receive`, a CGI program behind nginx and fcgiwrap): what
/// an iPhone POSTs after installing the enrollment profile, checked in order, each failure a 400 that
/// writes nothing:
///
/// 1. the method is POST (else 405), the content type `application/pkcs7-signature`, the length given and
///    at most ``Settings/maxBody``, and the body that long;
/// 2. the body is a CMS SignedData with the content inside, signed by a device certificate whose chain
///    reaches ``Settings/anchors`` (``SignedDataVerifier``);
/// 3. the content is an XML plist dict of strings with a well-formed `UDID` and a `CHALLENGE` that
///    ``EnrollmentChallenge`` accepts;
/// 4. its signature was not seen before: a replayed POST is refused, unless it only repeats what the
///    store already holds for that device, which is answered as a success without writing.
///
/// Then the device is added or updated in the store under its lock and the answer is a 301 to
/// ``Settings/thanks`` with the device's name, model and UDID in the query.
public struct EnrollmentReceiver: Sendable {
    /// How the receiver is set up (`devices receive`'s options).
    public struct Settings: Sendable {
        /// The device store (`--store`).
        public var store: String
        /// The certificates a device's chain must reach (`--trust`).
        public var anchors: TrustAnchors
        /// The key the enrollment page's challenge was made with (`--key`).
        public var key: EnrollmentKey
        /// The enrollment profile's PayloadIdentifier, which the challenge is bound to (`--identifier`).
        public var identifier: String
        /// The thank-you page the device is sent to (`--thanks`).
        public var thanks: String
        /// Whether certificates' validity dates are ignored (`--ignore-expiry`; Apple's device CA expired in 2014).
        public var ignoreExpiry: Bool
        /// The largest body read, in bytes (`--max-body`).
        public var maxBody: Int

        public init(
            store: String, anchors: TrustAnchors, key: EnrollmentKey, identifier: String, thanks: String, ignoreExpiry: Bool = false,
            maxBody: Int = EnrollmentReceiver.defaultMaxBody
        ) {
            self.store = store
            self.anchors = anchors
            self.key = key
            self.identifier = identifier
            self.thanks = thanks
            self.ignoreExpiry = ignoreExpiry
            self.maxBody = maxBody
        }
    }

    /// One HTTP request as CGI gives it: the variables (nil when not set) and the body read from standard
    /// input (at most ``Settings/maxBody`` + 1 bytes of it: the rest is read and dropped by the caller).
    public struct Request: Sendable {
        public var method: String?
        public var contentType: String?
        public var contentLength: String?
        public var body: [UInt8]

        public init(method: String?, contentType: String?, contentLength: String?, body: [UInt8]) {
            self.method = method
            self.contentType = contentType
            self.contentLength = contentLength
            self.body = body
        }
    }

    /// 64 KiB: a device's reply (three or four certificates and a small plist) is a few KiB.
    public static let defaultMaxBody = 64 << 10
    /// The content type an iPhone sends.
    public static let contentType = "application/pkcs7-signature"

    public var settings: Settings

    public init(settings: Settings) { self.settings = settings }

    /// Answers `request` at `now`; never throws: every problem is a response with its log line.
    public func respond(to request: Request, now: Date = Date()) -> EnrollmentResponse {
        do {
            let der = try checkRequest(request)
            let report: SignedDataReport
            do {
                report = try SignedDataVerifier.verify(der: der, anchors: settings.anchors, ignoreExpiry: settings.ignoreExpiry, now: now)
            } catch let error as Diagnostic {
                throw Refusal.signature(error.message)
            }
            let reply = try DeviceReply(content: report.content)
            let expires: Date
            do {
                expires = try EnrollmentChallenge.check(reply.challenge, key: settings.key, identifier: settings.identifier, now: now)
            } catch let error as Diagnostic {
                throw Refusal.challenge(error.message, udid: reply.udid)
            }
            let outcome = try EnrollmentRecorder(store: settings.store).record(reply, report: report, expires: expires, now: now)
            return success(reply, signer: report.signerIssuer, outcome: outcome)
        } catch let refusal as Refusal {
            return refusal.response
        } catch {
            return Refusal.store("\(error)").response
        }
    }

    /// Checks the request's method, content type and length; returns the body.
    func checkRequest(_ request: Request) throws -> [UInt8] {
        let method = request.method ?? ""
        guard method == "POST" else { throw Refusal.method(method) }
        let type = request.contentType ?? ""
        let mediaType = type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == Self.contentType else { throw Refusal.contentType(type) }
        guard let lengthText = request.contentLength, !lengthText.isEmpty, lengthText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw Refusal.length("no valid CONTENT_LENGTH (\(request.contentLength.map { "\"\($0)\"" } ?? "none"))")
        }
        guard let length = Int(lengthText), length <= settings.maxBody else {
            throw Refusal.length("\(lengthText) bytes, more than the \(settings.maxBody) accepted (--max-body)")
        }
        guard request.body.count == length else {
            throw Refusal.length("the body is \(request.body.count) bytes, not the \(length) of CONTENT_LENGTH")
        }
        guard request.body.first == 0x30 else { throw Refusal.signature("not a DER CMS SignedData (it does not start with 0x30)") }
        return request.body
    }

    func success(_ reply: DeviceReply, signer: String, outcome: EnrollmentRecorder.Outcome) -> EnrollmentResponse {
        let query = [("name", reply.name), ("model", reply.product ?? ""), ("udid", reply.udid)]
            .map { "\($0.0)=\(URLEncoding.encodeComponent($0.1))" }.joined(separator: "&")
        let location = settings.thanks + (settings.thanks.contains("?") ? "&" : "?") + query
        let what = outcome == .stored ? "stored" : "already registered"
        let line = "301 \(what) \(reply.udid) \"\(reply.name)\" \(reply.product ?? "-") signer \"\(signer)\""
        return EnrollmentResponse(
            status: 301, location: location, body: "Registered. See \(location)", logLine: Refusal.logPrefix + UntrustedText.line(line))
    }
}
