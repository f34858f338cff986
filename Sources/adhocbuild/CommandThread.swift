import Foundation
import SystemSupport

/// Runs the command on a thread of its own with a large stack; that thread ends the process.
enum CommandThread {
    /// The stack of the command's thread: 1 GiB of address space, enough for the deepest nesting the
    /// limits allow (``LimitSettings/maxPlistDepthCeiling`` levels) in every reader and writer.
    static let stackSize = 1 << 30

    /// Runs `body` on a new thread with a stack of `stackSize` bytes, which ends the process with
    /// the status `body` returns (here, on the main thread's smaller stack, when the system refuses
    /// the thread). The command's thread exits itself: handing its status back to this thread to
    /// exit with meant waking this one, and the kernel woke it on the core where the check's
    /// clean-up was running, while the other core had nothing to do.
    static func run(stackSize: Int, _ body: @escaping @Sendable () -> Int32) -> Never {
        if !PosixThread.start(stackSize: stackSize, { exit(body()) }) { exit(body()) }
        // Waits for the command's thread to end the process (or a signal's default action to).
        while true { pause() }
    }
}
