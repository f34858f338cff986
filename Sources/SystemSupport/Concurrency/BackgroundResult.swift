import Dispatch

/// A value computed on another thread, started at once and waited for when it is first needed.
///
/// The work runs on the global queue; ``get()`` waits for it and returns its value or rethrows its
/// error, the same on every call.
public final class BackgroundResult<Value: Sendable>: Sendable {
    private let group = DispatchGroup()
    private let result = Locked<Result<Value, any Error>?>(nil)

    /// Starts `work` on another thread.
    public init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async(group: group) { [result] in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
        }
    }

    /// Waits for the work to finish; its value, or its error.
    public func get() throws -> Value {
        group.wait()
        return try result.value!.get()
    }
}
