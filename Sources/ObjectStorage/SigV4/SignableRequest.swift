import Crypto
import SystemSupport

/// What SigV4 covers of an HTTP request: method, address, query, headers and the payload's hash.
///
/// The path is given already encoded (``URIEncoding/path(_:)``), exactly as it goes on the wire; the
/// query is given as plain names and values, which ``url`` and the canonical request encode.
public struct SignableRequest: Sendable, Equatable {
    /// `GET`, `PUT`, `HEAD`, `POST` or `DELETE`.
    public var method: String
    /// `https` or `http`.
    public var scheme: String
    /// The host as the `Host` header carries it: lower case, with the port unless it is the scheme's default.
    public var host: String
    /// The encoded path, starting with `/` (`/bucket/my%20key`).
    public var path: String
    /// The query parameters, plain (not encoded), in the order they go on the URL.
    public var query: [QueryItem]
    /// Headers to send and sign (besides `host` and the `x-amz-…` headers the signer adds).
    public var headers: [Header]
    /// The payload's hash, or that it is not signed.
    public var payload: PayloadHash

    public init(
        method: String, scheme: String, host: String, path: String, query: [QueryItem] = [], headers: [Header] = [],
        payload: PayloadHash = .empty
    ) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.path = path
        self.query = query
        self.headers = headers
        self.payload = payload
    }

    /// The URL to send the request to: the query encoded in its order.
    public var url: String {
        let base = "\(scheme)://\(host)\(path)"
        return query.isEmpty ? base : base + "?" + QueryItem.encoded(query)
    }

    /// The value of the first header named `name` (case-insensitive), if any.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One query parameter, plain (not encoded).
public struct QueryItem: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// `name=value&…`, each encoded by ``URIEncoding/component(_:)``, in the order given.
    public static func encoded(_ items: [QueryItem]) -> String {
        items.map { URIEncoding.component($0.name) + "=" + URIEncoding.component($0.value) }.joined(separator: "&")
    }
}

/// One HTTP header.
public struct Header: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// The `x-amz-content-sha256` of a request: the payload's SHA-256, or `UNSIGNED-PAYLOAD`.
public enum PayloadHash: Sendable, Equatable {
    /// The payload is not covered by the signature (presigned URLs; large files over HTTPS).
    case unsigned
    /// The lower-case hexadecimal SHA-256 of the payload.
    case sha256(String)

    /// The hash of an empty payload.
    public static let empty = PayloadHash.sha256(Digest.sha256([UInt8]()).hexString)

    /// The hash of `bytes`.
    public static func of(_ bytes: [UInt8]) -> PayloadHash { .sha256(Digest.sha256(bytes).hexString) }

    /// The header's value.
    public var value: String {
        switch self {
        case .unsigned: return "UNSIGNED-PAYLOAD"
        case .sha256(let hex): return hex
        }
    }
}
