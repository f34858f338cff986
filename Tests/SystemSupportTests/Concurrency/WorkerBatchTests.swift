import Foundation
import Testing

@testable import SystemSupport

/// Items reach the workers a batch at a time: a batch closes at its item count or its byte size,
/// keeps its items' order, and every item is worked on exactly once.
@Suite struct WorkerBatchTests {
    @Test func batchesCloseAtTheirCountOrTheirSizeAndKeepTheirOrder() throws {
        let pool = WorkerPool(label: "test.batches", capacity: 1)
        let batches = Locked<[[Int]]>([])
        let current = Locked<[Int]>([])
        // One worker at a time (capacity 1), so the items of a job arrive together.
        var batch = WorkerBatch<Int>(maxCount: 3, maxBytes: 100) { item in current.withLock { $0.append(item) } }
        func closeJob() throws {
            try pool.wait()
            let items = current.withLock { items in
                defer { items = [] }; return items
            }
            if !items.isEmpty { batches.withLock { $0.append(items) } }
        }
        for item in 1...4 {
            batch.add(item, bytes: 10, to: pool)  // closes after three items
            try closeJob()
        }
        batch.add(5, bytes: 95, to: pool)  // 4 and 5 make 105 bytes: closes by size
        try closeJob()
        batch.add(6, bytes: 1, to: pool)
        try closeJob()
        batch.submit(to: pool)  // the last, partly filled batch
        try closeJob()
        batch.submit(to: pool)  // nothing gathered: no job
        try closeJob()
        #expect(batches.value == [[1, 2, 3], [4, 5], [6]])
    }

    @Test func aFailingItemFailsThePool() {
        let pool = WorkerPool(label: "test.batches", capacity: 2)
        var batch = WorkerBatch<Int>(maxCount: 2, maxBytes: .max) { item in
            if item == 3 { throw Diagnostic.io("cannot be read", file: "item \(item)") }
        }
        for item in 1...4 { batch.add(item, bytes: 1, to: pool) }
        #expect(throws: Diagnostic.io("cannot be read", file: "item 3")) { try pool.wait() }
    }

    /// Work on a whole batch gets each batch's items together, as cut by count and size.
    @Test func batchWorkGetsEachBatchWhole() throws {
        let pool = WorkerPool(label: "test.batches", capacity: 2)
        let batches = Locked<[[Int]]>([])
        var batch = WorkerBatch<Int>(maxCount: 2, maxBytes: 50) { items in batches.withLock { $0.append(items) } }
        for item in 1...3 { batch.add(item, bytes: 1, to: pool) }
        batch.add(4, bytes: 60, to: pool)
        batch.add(5, bytes: 1, to: pool)
        batch.submit(to: pool)
        try pool.wait()
        #expect(batches.value.sorted { $0[0] < $1[0] } == [[1, 2], [3, 4], [5]])
    }
}
