import Foundation
import SystemSupport
import Testing

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
