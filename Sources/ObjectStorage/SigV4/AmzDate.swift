import Foundation

/// A moment as SigV4 writes it: `20260102T030405Z` (UTC), and its date part `20260102` for the scope.
public struct AmzDate: Sendable, Equatable {
    /// `yyyyMMdd'T'HHmmss'Z'`.
    public let timestamp: String

    public init(_ date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        timestamp =
            "\(parts.tm_year + 1900)" + two(parts.tm_mon + 1) + two(parts.tm_mday) + "T" + two(parts.tm_hour) + two(parts.tm_min)
            + two(parts.tm_sec) + "Z"
    }

    /// `yyyyMMdd`.
    public var day: String { String(timestamp.prefix(8)) }
}
