import SystemSupport

/// The store's address and how buckets are addressed on it.
///
/// Path-style puts the bucket in the path (`https://host/bucket/key`); virtual-hosted puts it in
/// the host name (`https://bucket.host/key`). ``Addressing-swift.enum/auto`` does what the AWS CLI
/// does: virtual-hosted when the bucket name is a valid host label (and has no `.` over HTTPS, so the
/// certificate matches), path-style otherwise and for IP addresses and `localhost`.
public struct S3Endpoint: Sendable, Equatable {
    public enum Addressing: String, Sendable, CaseIterable {
        case auto
        case path
        case virtualHosted = "virtual"
    }

    /// `https` or `http`.
    public let scheme: String
    /// The host in lower case, with its port unless it is the scheme's default (`127.0.0.1:8333`).
    public let host: String
    public let addressing: Addressing

    /// AWS's own endpoint for `region` (`https://s3.eu-west-1.amazonaws.com`).
    public static func aws(region: String, addressing: Addressing = .auto) -> S3Endpoint {
        S3Endpoint(scheme: "https", host: "s3.\(region).amazonaws.com", addressing: addressing)
    }

    private init(scheme: String, host: String, addressing: Addressing) {
        self.scheme = scheme
        self.host = host
        self.addressing = addressing
    }

    /// Parses an endpoint URL (`https://minio.example.com:9000`): a scheme and a host, nothing else.
    /// `http://` is refused unless `allowHTTP` (requests and their signed links would cross the
    /// network in clear).
    public init(url text: String, addressing: Addressing = .auto, allowHTTP: Bool = false) throws {
        func bad(_ why: String, hint: String? = nil) -> Diagnostic {
            Diagnostic.storage(.invalidArgument, "endpoint '\(text)' \(why)", hint: hint)
        }
        guard let separator = text.range(of: "://") else { throw bad("is not a URL: write https://HOST[:PORT]") }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { throw bad("must be https:// (or http:// with --allow-http)") }
        if scheme == "http" && !allowHTTP {
            throw bad(
                "is plain http://: requests and links would travel unencrypted", hint: "use --allow-http for a store on a trusted network")
        }
        var authority = text[separator.upperBound...]
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty else { throw bad("has no host") }
        if authority.contains("@") { throw bad("must not hold a user name or password: credentials come from the environment") }
        if let character = authority.first(where: { "/?#".contains($0) }) {
            throw bad("must be a scheme and a host only, without '\(character)' and what follows")
        }
        var host = String(authority).lowercased()
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            let port = host[host.index(after: colon)...]
            guard let number = Int(port), (1...65535).contains(number) else { throw bad("has a bad port '\(port)'") }
            if (scheme == "https" && number == 443) || (scheme == "http" && number == 80) { host = String(host[..<colon]) }
        }
        self.init(scheme: scheme, host: host, addressing: addressing)
    }

    /// The host name without the port, and without brackets for IPv6.
    var hostName: String {
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") { return String(host[host.index(after: host.startIndex)..<end]) }
        return host.split(separator: ":").first.map(String.init) ?? host
    }

    /// Whether `bucket` goes into the host name on this endpoint.
    public func isVirtualHosted(_ bucket: String) -> Bool {
        switch addressing {
        case .path: return false
        case .virtualHosted: return true
        case .auto:
            let name = hostName
            let isIP =
                host.hasPrefix("[") || name.split(separator: ".").count == 4 && name.split(separator: ".").allSatisfy { UInt8($0) != nil }
            guard !isIP, name != "localhost" else { return false }
            return Self.isHostLabel(bucket) && !(scheme == "https" && bucket.contains("."))
        }
    }

    /// The host and the encoded path for `key` in `bucket` (the bucket itself when `key` is nil).
    public func address(bucket: String, key: String?) -> (host: String, path: String) {
        let keyPath = key.map { "/" + URIEncoding.path($0) } ?? "/"
        if isVirtualHosted(bucket) { return ("\(bucket).\(host)", keyPath) }
        return (host, "/" + URIEncoding.path(bucket) + (key.map { "/" + URIEncoding.path($0) } ?? ""))
    }

    /// Whether `bucket` can be a DNS name's first labels: 3 to 63 lower-case letters, digits, `-`
    /// and `.`, starting and ending with a letter or digit, no `..`.
    static func isHostLabel(_ bucket: String) -> Bool {
        guard (3...63).contains(bucket.count), !bucket.contains(".."), !bucket.contains(".-"), !bucket.contains("-.") else { return false }
        let allowed = bucket.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
        let ends = [bucket.unicodeScalars.first!, bucket.unicodeScalars.last!].allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
        return allowed && ends
    }
}
