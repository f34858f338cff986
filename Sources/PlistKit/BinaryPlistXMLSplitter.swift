import Dispatch
import SystemSupport

/// Writes the children of large containers near the top of a binary plist to XML on several
/// threads, a chunk of children at a time, and puts the chunks in place in document order.
///
/// The walk on the calling thread writes everything else as usual; when it opens a container of
/// `minimumChildren` or more at depth `maximumDepth` or less, it hands the container here. The
/// children are cut into chunks; each thread takes the next chunk not yet taken and writes it
/// into memory with a walker and an encoder of its own, while the calling thread also writes
/// the finished chunks to the output in order.
///
/// Only the well-formed case is handled here: a problem in any chunk (a malformed object, a
/// cycle, a limit, a string XML cannot carry, a chunk that outgrows `chunkByteLimit`) fails the
/// whole conversion with that error, and the caller converts again on one thread, which reports
/// the first problem in document order exactly as it always has.
final class BinaryPlistXMLSplitter {
    /// Containers with fewer children are written by the walk that meets them.
    static let minimumChildren = 128
    /// Deepest container split (the top object is at depth 0).
    static let maximumDepth = 2
    /// Inputs smaller than this are converted on one thread: below about 1 MB of binary (4 MB of
    /// XML) a second thread's start-up and the hand-offs cost as much as it saves.
    static let minimumInputSize = 1 << 20

    /// The encoder of the whole document.
    let writer: XMLPlistStreamWriter
    let threads: Int
    /// The most one chunk may hold in memory before the conversion gives up on threads.
    var chunkByteLimit: Int
    /// At most this many containers are split, so a file of many mid-sized containers does not
    /// pay for thread hand-offs more often than the work can repay.
    private var splitsLeft = 16
    /// How many containers were split (for tests).
    private(set) var splits = 0
    /// Writers of chunks already put in place, for the next chunks: memory that is already
    /// mapped, and large enough, costs no page faults and no growing.
    private let spareWriters = Locked<[XMLPlistStreamWriter]>([])

    /// `inputSize`: the binary plist's size, which bounds a chunk's share of the output.
    init(writer: XMLPlistStreamWriter, threads: Int, inputSize: Int) {
        self.writer = writer
        self.threads = threads
        chunkByteLimit = max(64 << 20, 32 * inputSize / max(1, threads))
    }

    /// Writes the children of `container` (just opened in `writer` by `walker`) when it is large
    /// and near the top; false when it is not, and the walker writes them itself.
    func split(
        container: Int, refs: Int, count: Int, isDictionary: Bool, depth: Int,
        walker: inout BinaryPlistEventWalker
    ) throws -> Bool {
        // Objects that do not ascend are checked for overlap all together at the end, which a
        // walk in pieces cannot do.
        guard splitsLeft > 0, depth <= Self.maximumDepth, count >= Self.minimumChildren, walker.table.offsetsAscend else {
            return false
        }
        splitsLeft -= 1
        splits += 1
        let job = ChunkJob(
            table: walker.table, limits: walker.limits, container: container, refs: refs, count: count,
            isDictionary: isDictionary, depth: depth, encoderDepth: writer.openContainers,
            chunkCount: min(count / (Self.minimumChildren / 8), 16 * threads), valuesBefore: walker.valueCount,
            chunkByteLimit: chunkByteLimit, spareWriters: spareWriters)
        let helpers = DispatchGroup()
        for _ in 1..<threads {
            helpers.enter()
            DispatchQueue.global().async {
                try? job.work()  // a chunk's failure is kept in `job`
                helpers.leave()
            }
        }
        // The helpers read the input, which the caller frees once this returns or throws.
        defer {
            job.stop()
            helpers.wait()
        }
        var written = 0
        func writeFinished(waiting: Bool) throws {
            while written < job.chunkCount, let chunk = try job.finishedChunk(written, waiting: waiting) {
                try writer.appendFragment(chunk.writer.encoded, items: chunk.items)
                spareWriters.withLock { $0.append(chunk.writer) }
                walker.valueCount += chunk.values
                written += 1
            }
        }
        try job.work { try writeFinished(waiting: false) }
        try writeFinished(waiting: true)
        if walker.valueCount > walker.limits.maxValues {
            throw PlistError(.limitExceeded, "the plist expands to more than \(walker.limits.maxValues) values")
        }
        return true
    }
}

/// One split container's chunks, shared by the threads that write them.
///
/// `@unchecked Sendable`: the input and the settings are read-only; `next`, `failure` and the
/// finished chunks are behind `state`'s lock, and a chunk's writer is touched only by the thread
/// that fills it until its semaphore is signalled, then only by the thread that writes it out.
private final class ChunkJob: @unchecked Sendable {
    struct Chunk {
        let writer: XMLPlistStreamWriter
        let items: Int
        let values: Int
    }

    private struct State {
        var next = 0
        var failure: (any Error)?
        var chunks: [Chunk?]
    }

    let table: BinaryPlistObjectTable
    let limits: PlistLimits
    let container: Int
    let refs: Int
    let count: Int
    let isDictionary: Bool
    let depth: Int
    let encoderDepth: Int
    let chunkCount: Int
    let valuesBefore: Int
    let chunkByteLimit: Int
    private let spareWriters: Locked<[XMLPlistStreamWriter]>
    private let state: Locked<State>
    private let finished: [DispatchSemaphore]

    init(
        table: BinaryPlistObjectTable, limits: PlistLimits, container: Int, refs: Int, count: Int,
        isDictionary: Bool, depth: Int, encoderDepth: Int, chunkCount: Int, valuesBefore: Int,
        chunkByteLimit: Int, spareWriters: Locked<[XMLPlistStreamWriter]>
    ) {
        self.table = table
        self.limits = limits
        self.container = container
        self.refs = refs
        self.count = count
        self.isDictionary = isDictionary
        self.depth = depth
        self.encoderDepth = encoderDepth
        self.chunkCount = chunkCount
        self.valuesBefore = valuesBefore
        self.chunkByteLimit = chunkByteLimit
        self.spareWriters = spareWriters
        state = Locked(State(chunks: Array(repeating: nil, count: chunkCount)))
        finished = (0..<chunkCount).map { _ in DispatchSemaphore(value: 0) }
    }

    /// Room for a chunk's XML, assuming the container holds all of the input and XML takes four
    /// times the bytes of binary (pages not written to cost nothing).
    private var expectedChunkSize: Int { min(chunkByteLimit, 4 * table.bytes.count / chunkCount + (1 << 16)) }

    /// The children of chunk `index`.
    func range(of index: Int) -> Range<Int> { (index * count / chunkCount)..<((index + 1) * count / chunkCount) }

    /// The next chunk to write, or nil when all are taken or one failed.
    private func take() -> Int? {
        state.withLock { state in
            guard state.failure == nil, state.next < chunkCount else { return nil }
            defer { state.next += 1 }
            return state.next
        }
    }

    /// Stops handing out chunks (after a failure elsewhere).
    func stop() {
        state.withLock { state in
            if state.failure == nil && state.next < chunkCount { state.failure = CancellationError() }
            state.next = chunkCount
        }
    }

    /// Writes chunks until none is left or one failed, calling `afterEach` after each. A chunk's
    /// failure is kept for `finishedChunk(_:waiting:)` to throw; one of `afterEach` is thrown here.
    func work(afterEach: () throws -> Void = {}) throws {
        var walker = BinaryPlistEventWalker(
            table: table, limits: limits,
            sink: XMLPlistStreamWriter(fragmentAtDepth: encoderDepth, inDictionary: isDictionary, output: ByteOutput()))
        defer {
            ZeroedMemory.release(walker.marks)
            walker.keyIndex.deallocate()
        }
        walker.marks[container] = BinaryPlistEventWalker.inProgress
        while let index = take() {
            let chunk: Chunk?
            do {
                chunk = try write(index, with: &walker)
            } catch {
                chunk = nil
                state.withLock { state in
                    if state.failure == nil || state.failure is CancellationError { state.failure = error }
                }
            }
            state.withLock { $0.chunks[index] = chunk }
            finished[index].signal()
            guard chunk != nil else { return }
            try afterEach()
        }
    }

    /// Writes the children of chunk `index` into memory.
    private func write(_ index: Int, with walker: inout BinaryPlistEventWalker) throws -> Chunk {
        let range = range(of: index)
        let writer: XMLPlistStreamWriter
        if let spare = spareWriters.withLock({ $0.popLast() }) {
            writer = spare
            writer.restartFragment(atDepth: encoderDepth, inDictionary: isDictionary)
        } else {
            writer = XMLPlistStreamWriter(
                fragmentAtDepth: encoderDepth, inDictionary: isDictionary,
                output: ByteOutput(capacity: expectedChunkSize, limit: chunkByteLimit))
        }
        walker.sink = writer
        walker.valueCount = valuesBefore
        if isDictionary {
            try walker.walkPairs(of: container, refs: refs, count: count, in: range, depth: depth)
        } else {
            try walker.walkItems(of: container, refs: refs, in: range, depth: depth)
        }
        return Chunk(writer: writer, items: range.count, values: walker.valueCount - valuesBefore)
    }

    /// Chunk `index` once it is written (nil when `waiting` is false and it is not yet), handed
    /// over once; throws the failure that stopped the chunks.
    func finishedChunk(_ index: Int, waiting: Bool) throws -> Chunk? {
        if waiting {
            finished[index].wait()
        } else if finished[index].wait(timeout: .now()) == .timedOut {
            return nil
        }
        return try state.withLock { state in
            guard let chunk = state.chunks[index] else { throw state.failure ?? CancellationError() }
            state.chunks[index] = nil
            return chunk
        }
    }
}
