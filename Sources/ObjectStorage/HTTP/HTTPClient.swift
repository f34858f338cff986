import CLibCurl
import Foundation
import SystemSupport

/// An HTTP client over libcurl's easy interface: one request API, timeouts, and retries with
/// exponential backoff for idempotent requests.
///
/// Safe to share between threads: each request takes an easy handle from a pool (so connections are
/// reused) and gives it back. No redirect is followed and only `http` and `https` are spoken.
/// Errors name the method and the URL without its query (a presigned URL's query is a credential).
public final class HTTPClient: Sendable {
    public struct Options: Sendable {
        /// How long to wait for a connection.
        public var connectTimeout: TimeInterval
        /// How long a transfer may make no progress (less than 1 byte a second) before it is dropped.
        public var stallTimeout: TimeInterval
        public var retry: RetryPolicy
        /// The most a response body kept in memory may hold.
        public var maxMemoryBody: Int

        public init(
            connectTimeout: TimeInterval = 10, stallTimeout: TimeInterval = 30, retry: RetryPolicy = .standard,
            maxMemoryBody: Int = 64 << 20
        ) {
            self.connectTimeout = connectTimeout
            self.stallTimeout = stallTimeout
            self.retry = retry
            self.maxMemoryBody = maxMemoryBody
        }
    }

    public let options: Options
    private let handles = Locked<[CurlHandle]>([])

    /// A client; libcurl is loaded when the first request is sent, and a missing libcurl is that
    /// request's error.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Sends the request `make` builds, asking it again for each attempt (a signature holds the
    /// time), and retries per ``Options/retry`` when `idempotent` and the failure may pass.
    ///
    /// Returns the final answer whatever its status (the caller judges 4xx and 5xx); throws when
    /// no answer came, or a file to send or to write failed.
    public func send(idempotent: Bool, _ make: () throws -> HTTPRequest) throws -> HTTPResponse {
        let attempts = idempotent ? options.retry.attempts : 1
        var attempt = 1
        while true {
            let request = try make()
            let outcome = try perform(request)
            switch outcome {
            case .answered(let response):
                if attempt < attempts && RetryPolicy.isRetryable(status: response.status) { break }
                return response
            case .unanswered(let error):
                if attempt >= attempts { throw error }
            }
            options.retry.sleep(after: attempt)
            attempt += 1
        }
    }

    /// Sends `request` once, without retrying.
    public func sendOnce(_ request: HTTPRequest) throws -> HTTPResponse {
        switch try perform(request) {
        case .answered(let response): return response
        case .unanswered(let error): throw error
        }
    }

    enum Outcome {
        case answered(HTTPResponse)
        /// No answer, in a way that may pass on another attempt.
        case unanswered(Diagnostic)
    }

    /// One attempt; throws what no retry can fix.
    func perform(_ request: HTTPRequest) throws -> Outcome {
        let handle = try handles.withLock { $0.popLast() } ?? CurlHandle()
        defer { handles.withLock { $0.append(handle) } }
        return try handle.perform(request, options: options)
    }
}
