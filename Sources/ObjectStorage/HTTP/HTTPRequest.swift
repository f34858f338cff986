import Foundation

/// One HTTP request: method, URL, headers, a body from memory or from a range of a file (streamed,
/// never loaded whole), and where the response body goes.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The whole URL. Its query may be a presigned URL's signature: errors show ``redactedURL``.
    public var url: String
    public var headers: [Header]
    public var body: HTTPBody
    /// Where a 2xx response's body goes; an error response's body is always kept in memory.
    public var responseBody: HTTPResponseBody

    public init(method: String, url: String, headers: [Header] = [], body: HTTPBody = .none, responseBody: HTTPResponseBody = .memory) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.responseBody = responseBody
    }

    /// The URL without its query and fragment, for messages (a query can hold a signature or token).
    public var redactedURL: String { HTTPRequest.redact(url) }

    /// `url` without its query and fragment.
    public static func redact(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}

/// What a request sends.
public enum HTTPBody: Sendable {
    case none
    case data(Data)
    /// `length` bytes of the file at `path` from `offset`, read as they are sent.
    case file(path: String, offset: Int64, length: Int64)

    /// The number of bytes sent.
    public var length: Int64 {
        switch self {
        case .none: return 0
        case .data(let data): return Int64(data.count)
        case .file(_, _, let length): return length
        }
    }
}

/// Where a successful response's body goes.
public enum HTTPResponseBody: Sendable {
    /// Into ``HTTPResponse/body`` (up to the client's limit).
    case memory
    /// Into the file at `path`, created or truncated by each attempt (write to a temporary file and
    /// rename it once the request has succeeded).
    case file(String)
}

/// An HTTP answer.
public struct HTTPResponse: Sendable {
    public let status: Int
    /// The headers of the final answer, names as sent.
    public let headers: [Header]
    /// The body, unless it went to a file.
    public let body: Data

    public init(status: Int, headers: [Header], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}
