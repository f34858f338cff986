import Foundation
import SystemSupport
import Testing

@Suite struct BackgroundResultTests {
    @Test func theValueIsComputedOnAnotherThreadAndReturnedOnEveryGet() throws {
        let caller = pthread_self()
        let result = BackgroundResult { () throws -> Bool in pthread_self() != caller }
        #expect(try result.get())
        #expect(try result.get())
    }

    @Test func theErrorIsRethrownOnEveryGet() {
        struct Failure: Error, Equatable {}
        let result = BackgroundResult { () throws -> Int in throw Failure() }
        #expect(throws: Failure()) { try result.get() }
        #expect(throws: Failure()) { try result.get() }
    }

    /// A recursion 16,384 kilobyte frames deep overflows the default 8 MiB stack; it fits the one asked for.
    @Test func aThreadOfItsOwnGetsTheStackAskedFor() {
        let result = BackgroundResult(thread: "adhocbuild.test", stackSize: 128 << 20) { recurse(16_384) }
        #expect(result.get() == 16_384)
    }

    /// Work that waits for other jobs runs on its own thread, so it cannot hold a worker they need.
    @Test func workOnItsOwnThreadMayWaitForAnother() {
        let started = DispatchSemaphore(value: 0)
        let waiter = BackgroundResult(thread: nil) { () -> Bool in started.wait(timeout: .now() + 10) == .success }
        let signaller = BackgroundResult(thread: nil) { _ = started.signal() }
        signaller.get()
        #expect(waiter.get())
    }
}

/// Recurses `depth` times, each frame holding a kilobyte on the stack.
@inline(never) private func recurse(_ depth: Int) -> Int {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
        buffer.initialize(repeating: 1)
        return depth == 0 ? 0 : recurse(depth - 1) + Int(buffer[depth % 1024])
    }
}
