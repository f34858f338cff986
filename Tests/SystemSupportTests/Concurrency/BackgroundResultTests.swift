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

@Suite struct SerialWorkerTests {
    @Test func jobsRunOneAtATimeInTheOrderTheyWereHandedOver() {
        let worker = SerialWorker(label: "test")
        let state = Locked((order: [Int](), running: 0, most: 0))
        for index in 0..<200 {
            worker.run {
                state.withLock {
                    $0.running += 1
                    $0.most = max($0.most, $0.running)
                    $0.order.append(index)
                }
                state.withLock { $0.running -= 1 }
            }
        }
        worker.wait()
        #expect(state.value.order == Array(0..<200))
        #expect(state.value.most == 1)
        #expect(worker.isIdle)
    }

    @Test func isIdleIsFalseWhileAJobRuns() {
        let worker = SerialWorker(label: "test")
        let release = DispatchSemaphore(value: 0)
        worker.run { release.wait() }
        #expect(!worker.isIdle)
        release.signal()
        worker.wait()
        #expect(worker.isIdle)
    }
}

@Suite struct ParallelTests {
    @Test func everyIterationRunsOnceAndTheirWritesAreSeenAfter() throws {
        let counts = Locked([Int](repeating: 0, count: 500))
        try Parallel.forEach(500) { index in counts.withLock { $0[index] += 1 } }
        #expect(counts.value == [Int](repeating: 1, count: 500))
    }

    @Test func aFailureIsThrownOnceEveryIterationHasEnded() {
        struct Failure: Error, Equatable { var index: Int }
        let ran = Locked(0)
        #expect(throws: Failure(index: 7)) {
            try Parallel.forEach(20) { index in
                ran.withLock { $0 += 1 }
                if index == 7 { throw Failure(index: 7) }
            }
        }
        #expect(ran.value == 20)
    }
}

@Suite struct BackgroundTests {
    @Test func workRunsWithoutTheCallerWaiting() {
        let done = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Background.run {
            release.wait()
            done.signal()
        }
        // The call returned while the work still waits.
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}

@Suite struct LockTests {
    @Test func aLockWithoutAValueSerialisesWhatItGuards() {
        let lock = Locked()
        final class Counter: @unchecked Sendable { var value = 0 }
        let counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 1000) { _ in lock.withLock { counter.value += 1 } }
        #expect(counter.value == 1000)
    }
}

/// Recurses `depth` times, each frame holding a kilobyte on the stack.
@inline(never) private func recurse(_ depth: Int) -> Int {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
        buffer.initialize(repeating: 1)
        return depth == 0 ? 0 : recurse(depth - 1) + Int(buffer[depth % 1024])
    }
}

@Suite struct MonitorTests {
    /// A bounded hand-over: the producer waits for room, the consumer for an item; nothing is lost
    /// or reordered, and the window is never overfilled.
    @Test func waitersWakeWhenTheValueChangesAndSeeEveryChange() {
        let window = 3
        let queue = Monitor((items: [Int](), most: 0))
        let consumer = BackgroundResult(thread: nil) { () -> [Int] in
            var taken: [Int] = []
            while taken.count < 500 {
                taken.append(queue.wait { $0.items.isEmpty ? nil : $0.items.removeFirst() })
            }
            return taken
        }
        for item in 0..<500 {
            queue.wait { $0.items.count < window ? () : nil }
            queue.withLock {
                $0.items.append(item)
                $0.most = max($0.most, $0.items.count)
            }
        }
        #expect(consumer.get() == Array(0..<500))
        #expect(queue.withLock { $0.most } <= window)
    }
}
