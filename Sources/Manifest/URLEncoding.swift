import Foundation
import SystemSupport

/// URLs for over-the-air installs: validated base URLs, percent-encoded path segments, and
/// query values encoded as a query component (so a manifest URL survives inside
/// `itms-services://?action=download-manifest&url=…`).
public enum URLEncoding {
    /// Characters that may stand unencoded in a path segment (RFC 3986 unreserved).
    static let unreserved: Set<UInt8> = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))

    /// Percent-encodes everything but unreserved characters (so `/`, `?`, `#`, `&`, spaces and
    /// quotes all become `%XX`): right for one path segment and for a query value.
    public static func encodeComponent(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) { out.unicodeScalars.append(UnicodeScalar(byte)) } else { out += String(format: "%%%02X", byte) }
        }
        return out
    }

    /// Checks that `text` is an absolute https URL that file names can be joined to, and returns it as
    /// the user wrote it, with a `/` added at the end if it lacks one.
    ///
    /// The base is the user's: TeamCity locators (`123:id`), escapes already in it (`%20`), `~`, `+` and
    /// `@` are kept byte for byte. Only bytes outside ASCII are percent-encoded (as UTF-8, the mapping
    /// from an IRI to a URI of RFC 3987, which changes no meaning), since iOS cannot load a URL holding
    /// them. Refused with a clear error: no scheme or host, a scheme other than https (http only with
    /// `allowHTTP`: iOS 7.1 and later refuse manifests served over http), spaces, control characters
    /// and the characters no URL may hold (`"<>\^`{|}`), a `%` not followed by two hex digits, and a
    /// query or fragment, which would end up in front of every file name joined to the base.
    ///
    /// `shownAs` is what errors quote: the template the user wrote, when `text` was filled in from one.
    public static func baseURL(_ text: String, allowHTTP: Bool = false, shownAs: String? = nil) throws -> String {
        var out = try checkedURL(text, what: "base URL", allowHTTP: allowHTTP, allowsQuery: false, shownAs: shownAs)
        if out.last != "/" { out.append("/") }
        return out
    }

    /// The URL of the ipa itself (`manifest --ipa-url`), checked as a base URL is (https, a host, no
    /// spaces or characters a URL cannot hold, non-ASCII percent-encoded) except that a query is
    /// allowed, as signed download links (S3, CDNs) carry one, and nothing is appended.
    public static func ipaURL(_ text: String, allowHTTP: Bool = false) throws -> String {
        try checkedURL(text, what: "ipa URL", allowHTTP: allowHTTP, allowsQuery: true, shownAs: nil)
    }

    /// A page's URL to link to (`release --enroll-url`), checked as the ipa's URL is; `what` names it in errors.
    public static func linkURL(_ text: String, what: String, allowHTTP: Bool = false) throws -> String {
        try checkedURL(text, what: what, allowHTTP: allowHTTP, allowsQuery: true, shownAs: nil)
    }

    private static func checkedURL(_ text: String, what: String, allowHTTP: Bool, allowsQuery: Bool, shownAs: String?) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        func failure(_ problem: String) -> Diagnostic { Diagnostic.manifest(.baseURL, "\(what) '\(shownAs ?? text)' \(problem)") }
        guard let schemeEnd = trimmed.range(of: "://") else {
            throw failure("is not an absolute URL (like https://builds.example.com/app/)")
        }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { throw failure("must use https, not \(scheme)") }
        let rest = trimmed[schemeEnd.upperBound...]
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        // `host`, `host:port`, or an IPv6 literal in brackets with an optional port.
        let hostEnd =
            hostAndPort.hasPrefix("[")
            ? hostAndPort.firstIndex(of: "]").map(hostAndPort.index(after:)) ?? hostAndPort.endIndex
            : hostAndPort.firstIndex(of: ":") ?? hostAndPort.endIndex
        let host = hostAndPort[..<hostEnd]
        guard !host.isEmpty else { throw failure("has no host") }
        if host.hasPrefix("["), !host.hasSuffix("]") { throw failure("has an IPv6 address without its closing ']'") }
        if hostEnd < hostAndPort.endIndex {
            let port = hostAndPort[hostEnd...].dropFirst()
            guard hostAndPort[hostEnd] == ":", !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(port), (1...65_535).contains(number)
            else { throw failure("has a port that is not a number from 1 to 65535 ('\(hostAndPort[hostEnd...])')") }
        }
        var out = [UInt8]()
        let bytes = Array(trimmed.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x80...:
                out += Array(String(format: "%%%02X", byte).utf8)
            case 0x00...0x20, 0x7F:
                throw failure(byte == 0x20 ? "contains a space; write it as %20" : "contains a control character")
            case UInt8(ascii: "?") where allowsQuery:
                out.append(byte)
            case UInt8(ascii: "#") where allowsQuery:
                throw failure("has a fragment ('#…'), which is not sent to the server; leave it out")
            case UInt8(ascii: "?"), UInt8(ascii: "#"):
                throw failure(
                    "has a \(byte == UInt8(ascii: "?") ? "query" : "fragment") ('\(Character(UnicodeScalar(byte)))…'), "
                        + "which would come before every file name joined to it; give the folder the files are served from")
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, Self.isHexDigit(bytes[index + 1]), Self.isHexDigit(bytes[index + 2]) else {
                    throw failure("has a '%' that is not followed by two hex digits; write a literal % as %25")
                }
                out.append(byte)
            default:
                if Self.notInURLs.contains(byte) {
                    throw failure("contains '\(Character(UnicodeScalar(byte)))', which a URL cannot hold; percent-encode it")
                }
                out.append(byte)
            }
            index += 1
        }
        if scheme == "http" && !allowHTTP {
            throw failure(
                "uses http; iOS 7.1 and later refuse to install from a manifest "
                    + "served over http (use https, or --allow-http for a test setup)")
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `baseURL(text, allowHTTP:)`, with the one warning every command gives for a plain http base
    /// allowed with `--allow-http`.
    public static func baseURLWithWarning(_ text: String, allowHTTP: Bool) throws -> (url: String, warning: String?) {
        let base = try baseURL(text, allowHTTP: allowHTTP)
        let insecure = base.lowercased().hasPrefix("http:")
        return (base, insecure ? "the base URL '\(base)' uses http: iOS will refuse to install from it; serve it over https" : nil)
    }

    /// ASCII characters that may not appear in a URL at all (RFC 3986 neither reserves nor allows them).
    static let notInURLs: Set<UInt8> = Set(Array("\"<>\\^`{|}".utf8))

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// `base` followed by `segments`, each percent-encoded as one path segment (so `:`, `+`, `@`, `%`,
    /// spaces and non-ASCII in a file or folder name are escaped, and `/` inside a name too).
    public static func join(_ base: String, segments: [String]) -> String {
        base + segments.map { encodeComponent($0) }.joined(separator: "/")
    }

    /// `base` followed by `path`'s segments, each percent-encoded.
    public static func join(_ base: String, _ path: String) -> String {
        base + path.split(separator: "/", omittingEmptySubsequences: true).map { encodeComponent(String($0)) }.joined(separator: "/")
    }

    /// The install link: `itms-services://?action=download-manifest&url=` and the manifest's URL as a query value.
    public static func installLink(manifestURL: String) -> String {
        "itms-services://?action=download-manifest&url=" + encodeComponent(manifestURL)
    }
}
