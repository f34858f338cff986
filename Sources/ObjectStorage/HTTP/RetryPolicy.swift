import Foundation

/// How often and how long to retry a request that failed in a way that may pass: no answer (refused
/// connection, timeout, reset) or a 5xx / 429 answer. Only idempotent requests are retried.
///
/// The waits grow exponentially (`baseDelay`, twice that, …, at most `maxDelay`), each shortened
/// by a random part of up to half, so agents that failed together do not retry together.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (1: never retry).
    public var attempts: Int
    public var baseDelay: TimeInterval
    public var maxDelay: TimeInterval

    public init(attempts: Int = 5, baseDelay: TimeInterval = 0.25, maxDelay: TimeInterval = 8) {
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The AWS CLI's standard mode: 5 attempts.
    public static let standard = RetryPolicy()
    /// One attempt.
    public static let never = RetryPolicy(attempts: 1)

    /// The wait before attempt `attempt + 1` (`attempt` counted from 1), before the random part.
    public func delay(after attempt: Int) -> TimeInterval {
        min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
    }

    /// Whether an answer with `status` may succeed when asked again.
    public static func isRetryable(status: Int) -> Bool { status >= 500 || status == 429 }

    func sleep(after attempt: Int) {
        let full = delay(after: attempt)
        Thread.sleep(forTimeInterval: full - Double.random(in: 0...(full / 2)))
    }
}
