import Dispatch

/// Work handed to another thread and never waited for.
public enum Background {
    /// Runs `work` on the global queue and returns at once: for work whose end nobody needs to
    /// see, such as tearing down what a finished job leaves behind.
    public static func run(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: work)
    }
}
