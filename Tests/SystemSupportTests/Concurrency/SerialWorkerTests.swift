import Foundation
import SystemSupport
import Testing

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
