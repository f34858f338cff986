import Foundation

/// A value shared between threads behind a lock.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: every access to `stored` holds `lock`.
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    /// A copy of the value.
    public var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }

    /// Runs `body` with the value, holding the lock (for a read-modify-write in one step).
    @discardableResult
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }
}

extension Locked where Value == Void {
    /// A lock that guards no value of its own, only what its callers touch holding it (a C
    /// library's handle that one thread at a time may use).
    public convenience init() { self.init(()) }

    /// Runs `body` holding the lock.
    @discardableResult
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try withLock { _ in try body() }
    }
}
