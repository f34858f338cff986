/// Items handed to a ``WorkerPool`` a batch at a time, so that thousands of small ones (files of
/// an app, entries of an archive) cost a job hand-over and a worker's wake-up per batch, not
/// each. A batch goes to the pool once it holds `maxCount` items or `maxBytes` bytes; the
/// caller submits the last, partly filled one with ``submit(to:)``.
public struct WorkerBatch<Item: Sendable> {
    private var items: [Item] = []
    private var bytes = 0
    private let maxCount: Int
    private let maxBytes: Int
    private let work: @Sendable ([Item]) throws -> Void

    /// `work` runs on a worker for each item of a batch, in the order they were added.
    public init(maxCount: Int, maxBytes: Int, work: @escaping @Sendable (Item) throws -> Void) {
        self.init(maxCount: maxCount, maxBytes: maxBytes, batchWork: { for item in $0 { try work(item) } })
    }

    /// `batchWork` runs on a worker with each batch's items, in the order they were added, so
    /// it can share what they need (one read, one buffer) between them.
    public init(maxCount: Int, maxBytes: Int, batchWork: @escaping @Sendable ([Item]) throws -> Void) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
        self.work = batchWork
    }

    /// Adds `item`, which counts `bytes` towards the batch's size, and submits the batch to
    /// `pool` when it is full.
    public mutating func add(_ item: Item, bytes: Int, to pool: WorkerPool) {
        items.append(item)
        self.bytes += bytes
        if items.count >= maxCount || self.bytes >= maxBytes { submit(to: pool) }
    }

    /// Submits what has gathered (if anything) as one job, and starts a new batch.
    public mutating func submit(to pool: WorkerPool) {
        guard !items.isEmpty else { return }
        let batch = items
        let work = self.work
        items = []
        bytes = 0
        pool.submit { try work(batch) }
    }
}
