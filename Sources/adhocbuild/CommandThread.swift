import Foundation
import SystemSupport

/// Runs the command on a thread of its own with a large stack, and waits for its exit status.
enum CommandThread {
    /// The stack of the command's thread: 1 GiB of address space, enough for the deepest nesting the
    /// limits allow (``LimitSettings/maxPlistDepthCeiling`` levels) in every reader and writer.
    static let stackSize = 1 << 30

    /// Runs `body` on a new thread with a stack of `stackSize` bytes and returns what it returns.
    static func run(stackSize: Int, _ body: @escaping @Sendable () -> Int32) -> Int32 {
        BackgroundResult(thread: nil, stackSize: stackSize, body).get()
    }
}
