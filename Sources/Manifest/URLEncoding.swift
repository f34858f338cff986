import Foundation

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
            if unreserved.contains(byte) { out.unicodeScalars.append(UnicodeScalar(byte)) }
            else { out += String(format: "%%%02X", byte) }
        }
        return out
    }

    /// A problem with a base URL.
    public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
        public var description: String

        public init(description: String) { self.description = description }
    }

    /// Checks that `text` is an absolute http(s) URL and returns it normalised: each path segment
    /// percent-encoded (spaces, quotes, `&`, `?` and `#` in folder names become `%XX`; segments already
    /// encoded stay as they are) and ending with `/`. Plain http is an error (iOS 7.1 and later refuse
    /// manifests over http) unless `allowHTTP`.
    public static func baseURL(_ text: String, allowHTTP: Bool = false) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = trimmed.range(of: "://") else {
            throw Failure(description: "base URL '\(text)' is not an absolute URL (like https://builds.example.com/app/)")
        }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        let rest = trimmed[schemeEnd.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = String(rest[..<slash])
        guard scheme == "https" || scheme == "http" else {
            throw Failure(description: "base URL '\(text)' must use https, not \(scheme)")
        }
        guard !authority.isEmpty, !authority.contains(where: { $0.isWhitespace || "\"'<>#?&".contains($0) }) else {
            throw Failure(description: "base URL '\(text)' has no valid host")
        }
        if scheme == "http" && !allowHTTP {
            throw Failure(description: "base URL '\(text)' uses http; iOS 7.1 and later refuse to install from a manifest "
                          + "served over http (use https, or --allow-http for a test setup)")
        }
        let segments = rest[slash...].split(separator: "/", omittingEmptySubsequences: true).map { segment -> String in
            let raw = String(segment)
            return encodeComponent(raw.removingPercentEncoding ?? raw)
        }
        return "\(scheme)://\(authority)/" + segments.map { $0 + "/" }.joined()
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
