import CodeSign
import Foundation
import Manifest
import PlistKit
import SystemSupport

/// The `.mobileconfig` of an enrollment page: one Profile Service payload (Apple's over-the-air profile
/// delivery, phase 1) that asks the iPhone to POST its UDID, model, iOS build, serial number and name,
/// with the ``EnrollmentChallenge``, to ``receiveURL``. iOS does not keep the profile: it sends the
/// reply and opens the page the receiver redirects to.
///
/// The top-level dictionary is the payload itself (`PayloadType` `Profile Service`, `PayloadContent` a
/// dictionary), unlike a configuration profile. Signed with an identity (CMS, content attached) iOS shows
/// it as verified when the chain reaches a root it trusts; unsigned, as "Unsigned".
public struct EnrollmentProfile: Sendable {
    /// What the profile asks the device for, in this order.
    public static let deviceAttributes = ["UDID", "PRODUCT", "VERSION", "SERIAL", "DEVICE_NAME"]
    /// The receiver's path under the page's URL: `https://HOST/udid/` + `receive`, so the page's own
    /// address stays the static page.
    public static let receivePath = "receive"

    /// The enrollment page's URL (`--url`), ending in `/`.
    public var pageURL: String
    /// Where the device POSTs its reply: ``pageURL`` + ``receivePath``.
    public var receiveURL: String { pageURL + Self.receivePath }
    /// `PayloadIdentifier`: the page's host reversed, then `udid` (``identifier(forPageURL:)``).
    public var identifier: String
    /// `PayloadUUID`: fresh for every profile made, upper-case.
    public var uuid: String
    /// `PayloadOrganization`, shown under the title; nil leaves it out.
    public var organization: String?
    /// `PayloadContent.Challenge`.
    public var challenge: String

    /// A profile for the page at `pageURL` (checked: https, a host, no query) with a new challenge made with
    /// `key`, issued at `issued` and valid for `validFor` seconds.
    public init(pageURL: String, organization: String?, key: EnrollmentKey, issued: Date, validFor: TimeInterval) throws {
        self.pageURL = try URLEncoding.baseURL(pageURL, shownAs: pageURL)
        identifier = Self.identifier(forPageURL: self.pageURL)
        uuid = UUID().uuidString.uppercased()
        self.organization = organization.flatMap { $0.isEmpty ? nil : $0 }
        challenge = try EnrollmentChallenge.make(key: key, identifier: identifier, issued: issued, validFor: validFor)
    }

    /// The `PayloadIdentifier` for a page at `url`: its host's labels reversed, then `udid`
    /// (`https://builds.example.com/udid/` gives `com.example.builds.udid`). The receiver checks a
    /// challenge against the identifier of its own host, so both must be served from the same one.
    public static func identifier(forPageURL url: String) -> String {
        let labels = host(ofPageURL: url).lowercased().split(separator: ".").map { label in
            String(label.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "-" })
        }
        return (labels.reversed() + ["udid"]).joined(separator: ".")
    }

    /// The host of `url`, without user, port or IPv6 brackets.
    public static func host(ofPageURL url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        var host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return String(host)
    }

    /// The title iOS shows for the profile.
    public var displayName: String {
        organization.map { "Register this device with \($0)" } ?? "Register this device for test builds"
    }

    /// The profile as a plist dictionary.
    public var plist: PlistDictionary {
        let host = Self.host(ofPageURL: pageURL)
        var content = PlistDictionary()
        content["URL"] = .string(receiveURL)
        content["DeviceAttributes"] = .array(Self.deviceAttributes.map { .string($0) })
        content["Challenge"] = .string(challenge)
        var top = PlistDictionary()
        top["PayloadType"] = "Profile Service"
        top["PayloadVersion"] = .integer(PlistInteger(1))
        top["PayloadIdentifier"] = .string(identifier)
        top["PayloadUUID"] = .string(uuid)
        top["PayloadDisplayName"] = .string(displayName)
        if let organization { top["PayloadOrganization"] = .string(organization) }
        top["PayloadDescription"] = .string(
            "Sends this device's UDID, model, iOS build, serial number and name to \(host), so that test builds can "
                + "include it. The profile is temporary: nothing stays installed.")
        top["PayloadContent"] = .dictionary(content)
        return top
    }

    /// The XML plist, unsigned.
    public func xml() throws -> [UInt8] {
        [UInt8](try PropertyList.encode(.dictionary(plist), format: .xml))
    }

    /// The `.mobileconfig`'s bytes: the XML plist, signed by `identity` (a DER CMS carrying it byte for
    /// byte) when one is given.
    public func mobileconfig(signedBy identity: SigningIdentity?) throws -> [UInt8] {
        let bytes = try xml()
        guard let identity else { return bytes }
        return try AttachedSignedData.sign(content: bytes, identity: identity)
    }
}
