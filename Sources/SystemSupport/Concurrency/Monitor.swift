import Foundation

/// A value shared between threads behind a lock, on which a thread can wait until the value is as
/// it needs: every change made through ``withLock(_:)`` wakes the waiting threads, which look again.
///
/// For hand-overs between threads (a chunk written, a place in a window freed); a value that is
/// only read and written, never waited on, is a ``Locked``.
public final class Monitor<Value>: @unchecked Sendable {
    // @unchecked: every access to `stored` holds `condition`'s lock.
    private let condition = NSCondition()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    /// Runs `body` with the value, holding the lock, then wakes every thread waiting on it.
    @discardableResult
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&stored)
    }

    /// Waits until `ready`, run with the value holding the lock each time it changes, returns
    /// something other than nil, and returns that; what `ready` changes wakes the other waiters.
    public func wait<T>(until ready: (inout Value) throws -> T?) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        while true {
            if let result = try ready(&stored) { return result }
            condition.wait()
        }
    }
}
