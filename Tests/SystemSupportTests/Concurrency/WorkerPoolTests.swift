import Foundation
import SystemSupport
import Testing

@Suite struct WorkerPoolTests {
    @Test func everyJobRunsAndNoMoreThanTheCapacityAreInFlight() throws {
        let pool = WorkerPool(label: "test", capacity: 3)
        let state = Locked((running: 0, most: 0, done: 0))
        for _ in 0..<50 {
            pool.submit {
                state.withLock {
                    $0.running += 1; $0.most = max($0.most, $0.running)
                }
                usleep(200)
                state.withLock {
                    $0.running -= 1; $0.done += 1
                }
            }
        }
        try pool.wait()
        #expect(state.value.done == 50)
        #expect(state.value.most <= 3)
    }

    @Test func theFirstFailureIsThrownAndLaterJobsAreSkipped() {
        struct Failure: Error, Equatable { var index: Int }
        let pool = WorkerPool(label: "test", capacity: 1)
        let ran = Locked([Int]())
        for index in 0..<5 {
            pool.submit {
                ran.withLock { $0.append(index) }
                if index == 1 { throw Failure(index: 1) }
            }
        }
        #expect(throws: Failure(index: 1)) { try pool.wait() }
        #expect(pool.hasFailed)
        #expect(ran.value == [0, 1])
    }
}
