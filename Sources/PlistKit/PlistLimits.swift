import Foundation
import SystemSupport

/// Limits on what a reader accepts, so hostile input fails clearly instead of exhausting memory.
///
/// Every reader takes limits as a value; `PlistLimits.default`, the built-in limits, is what it uses
/// when given none. The command-line tool builds its own from environment variables for users with
/// legitimately huge files and passes them to every read.
public struct PlistLimits: Sendable, Equatable {
    /// Deepest nesting of arrays and dictionaries.
    public var maxDepth: Int
    /// Most values a document may expand to (binary plists can share objects, so a small file
    /// could otherwise describe an exponentially large tree).
    public var maxValues: Int
    /// Largest document read, in bytes; it bounds every string and data value too.
    public var maxInputSize: Int

    public init(maxDepth: Int = 512, maxValues: Int = 100_000_000, maxInputSize: Int = 1 << 30) {
        self.maxDepth = maxDepth
        self.maxValues = maxValues
        self.maxInputSize = maxInputSize
    }

    /// The built-in limits, which readers use when given none.
    public static let `default` = PlistLimits()

    /// Throws a `limitExceeded` error when a document of `size` bytes is over `maxInputSize`.
    public func checkInputSize(_ size: Int) throws {
        guard size > maxInputSize else { return }
        throw Diagnostic.plist(.limitExceeded, "the file is \(size) bytes, more than the limit of \(maxInputSize)")
    }
}
