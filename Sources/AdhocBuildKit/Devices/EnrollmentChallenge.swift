import CodeSign
import Foundation
import PlistKit
import SystemSupport

/// The `Challenge` of an enrollment profile, which an iPhone sends back as `CHALLENGE` with its UDID:
/// `v1.<issued>.<expires>.<nonce>.<mac>`, where `issued` and `expires` are Unix seconds in decimal, `nonce`
/// is 16 random bytes and `mac` the HMAC-SHA256 under the ``EnrollmentKey`` of
/// `adhocbuild-udid-v1|<issued>|<expires>|<nonce>|<PayloadIdentifier>`, both in base64url without padding.
///
/// Every tester downloads the same static profile, so the challenge proves only that a reply answers a
/// current profile of ours (made with our key, for this identifier, not expired), not which visitor sent it.
///
/// ``check(_:key:identifier:now:)`` throws a `codesign` diagnostic: ``CodeSignProblem/malformed`` for a
/// challenge that is not of this form, ``CodeSignProblem/signatureInvalid`` for a MAC that is not ours (another
/// key, another identifier, a changed field), ``CodeSignProblem/expired`` for one past its expiry.
public enum EnrollmentChallenge {
    /// The longest challenge read; a well-formed one is about 90 characters.
    public static let maximumLength = 256
    private static let version = "v1"
    private static let context = "adhocbuild-udid-v1"

    /// A challenge for the profile `identifier`, issued at `issued` and valid for `validFor` seconds.
    public static func make(key: EnrollmentKey, identifier: String, issued: Date, validFor: TimeInterval) throws -> String {
        let start = Int64(issued.timeIntervalSince1970.rounded(.down))
        let end = start + Int64(validFor.rounded(.down))
        let nonce = base64url(try RandomBytes.make(16))
        let mac = base64url(HMAC.sha256(key: key.bytes, message(issued: start, expires: end, nonce: nonce, identifier: identifier)))
        return [version, String(start), String(end), nonce, mac].joined(separator: ".")
    }

    /// Checks `challenge` against `key` and the profile `identifier` at `now`; returns when it expires.
    public static func check(_ challenge: String, key: EnrollmentKey, identifier: String, now: Date) throws -> Date {
        guard challenge.utf8.count <= maximumLength else { throw malformed("is \(challenge.utf8.count) bytes long") }
        let fields = challenge.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 5, fields[0] == version else { throw malformed("is not of the form v1.<issued>.<expires>.<nonce>.<mac>") }
        guard let issued = seconds(fields[1]), let expires = seconds(fields[2]), issued <= expires else {
            throw malformed("has no valid issued and expires times")
        }
        guard let nonce = bytes(base64url: fields[3]), nonce.count == 16 else { throw malformed("has no 16-byte nonce") }
        guard let mac = bytes(base64url: fields[4]), mac.count == 32 else { throw malformed("has no 32-byte MAC") }
        let expected = HMAC.sha256(key: key.bytes, message(issued: issued, expires: expires, nonce: fields[3], identifier: identifier))
        guard HMAC.constantTimeEqual(mac, expected) else {
            throw Diagnostic.codeSign(
                .signatureInvalid, "the enrollment challenge's MAC does not match: not made with this key for \(identifier)")
        }
        let end = Date(timeIntervalSince1970: TimeInterval(expires))
        guard now < end else {
            throw Diagnostic.codeSign(
                .expired, "the enrollment challenge expired on \(PlistDate(end).iso8601); publish a new enrollment page")
        }
        return end
    }

    private static func message(issued: Int64, expires: Int64, nonce: String, identifier: String) -> [UInt8] {
        Array([context, String(issued), String(expires), nonce, identifier].joined(separator: "|").utf8)
    }

    private static func malformed(_ what: String) -> Diagnostic {
        Diagnostic.codeSign(.malformed, "the enrollment challenge \(what)")
    }

    /// Unix seconds written in decimal digits only (no sign, at most 12 digits).
    private static func seconds(_ text: String) -> Int64? {
        guard !text.isEmpty, text.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func bytes(base64url text: String) -> [UInt8]? {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        guard text.utf8.allSatisfy(alphabet.contains) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
