import Foundation

/// Runs jobs on a concurrent queue with a bounded number in flight, keeping the first failure.
///
/// ``submit(_:)`` blocks while `capacity` jobs are queued or running, so a producer reading input
/// on its own thread never gets more than that far ahead of the workers (memory stays bounded).
/// After a failure, later jobs are skipped; ``wait()`` waits for every job and rethrows it.
public final class WorkerPool: Sendable {
    private let queue: DispatchQueue
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let failure = Locked<(any Error)?>(nil)

    /// `capacity`: how many jobs may be queued or running at once (at least 1).
    public init(label: String, capacity: Int) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
        slots = DispatchSemaphore(value: max(1, capacity))
    }

    /// Whether a job has failed (producers stop submitting then).
    public var hasFailed: Bool { failure.value != nil }

    /// The first failure, if any.
    public var firstFailure: (any Error)? { failure.value }

    /// Records `error` as the pool's failure unless an earlier one is kept.
    public func record(_ error: any Error) {
        failure.withLock { if $0 == nil { $0 = error } }
    }

    /// Queues `job`, waiting for a free slot first.
    public func submit(_ job: @escaping @Sendable () throws -> Void) {
        slots.wait()
        group.enter()
        queue.async { [self] in
            defer { slots.signal(); group.leave() }
            guard !hasFailed else { return }
            do { try job() } catch { record(error) }
        }
    }

    /// Waits for every submitted job; throws the first failure.
    public func wait() throws {
        group.wait()
        if let error = failure.value { throw error }
    }
}
