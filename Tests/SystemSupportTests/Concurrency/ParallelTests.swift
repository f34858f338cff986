import Foundation
import SystemSupport
import Testing

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
