import Dispatch

/// A value computed on another thread, started at once and waited for when it is first needed.
///
/// The work runs on the global queue, or on a thread of its own (``init(thread:stackSize:_:)``)
/// when it waits for other jobs or needs a large stack; ``get()`` waits for it and returns its
/// value or rethrows its error, the same on every call. With a `Failure` of `Never` (work that
/// cannot throw), ``get()`` needs no `try`.
public final class BackgroundResult<Value: Sendable, Failure: Error>: Sendable {
    private let group = DispatchGroup()
    private let result = Locked<Result<Value, Failure>?>(nil)

    /// Starts `work` on the global queue.
    public init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        DispatchQueue.global().async(group: group) { [result] in
            let outcome = Result(catching: work)
            result.withLock { $0 = outcome }
        }
    }

    /// Starts `work` on a new thread named `thread` (``PosixThread/shortName(_:)``), with a stack
    /// of `stackSize` bytes when given: for work that blocks (a dispatch worker waiting would hold
    /// one the other jobs need) or recurses deeply. When the system refuses a thread, the work goes
    /// to the global queue (never to the caller: some work waits for its caller, as a read-ahead
    /// waits for its reader).
    public init(thread name: String?, stackSize: Int? = nil, _ work: @escaping @Sendable () throws(Failure) -> Value) {
        group.enter()
        let finish: @Sendable () -> Void = { [result, group] in
            let outcome = Result(catching: work)
            result.withLock { $0 = outcome }
            group.leave()
        }
        if !PosixThread.start(name: name, stackSize: stackSize, finish) { DispatchQueue.global().async(execute: finish) }
    }

    /// Waits for the work to finish; its value, or its error.
    public func get() throws(Failure) -> Value {
        group.wait()
        return try result.value!.get()
    }
}
