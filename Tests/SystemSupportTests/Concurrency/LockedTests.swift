import Foundation
import SystemSupport
import Testing

@Suite struct LockedTests {
    @Test func updatesFromManyThreadsAreNotLost() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 1000) { _ in counter.withLock { $0 += 1 } }
        #expect(counter.value == 1000)
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
