import Dispatch

/// Jobs run one at a time, in the order they were handed over, on a thread other than the
/// caller's: writes that must reach a file in order while the caller fills the next buffer, a
/// flush that runs beside the writing.
public final class SerialWorker: Sendable {
    private let queue: DispatchQueue
    private let group = DispatchGroup()

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Queues `job` after those already handed over; returns at once.
    public func run(_ job: @escaping @Sendable () -> Void) {
        group.enter()
        queue.async { [group] in
            job()
            group.leave()
        }
    }

    /// Whether every job handed over has finished (it does not wait).
    public var isIdle: Bool { group.wait(timeout: .now()) == .success }

    /// Waits until every job handed over has finished.
    public func wait() {
        group.wait()
    }
}
