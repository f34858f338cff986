import Foundation
import SystemSupport

/// Writes the children of large containers near the top of a binary plist to XML on several
/// threads, a chunk of children at a time, and puts the chunks in place in document order.
///
/// The walk on the calling thread writes everything else as usual; when it opens a container of
/// `minimumChildren` or more at depth `maximumDepth` or less, it hands the container here. The
/// children are cut into chunks; each thread takes the next chunk not yet taken and writes it
/// into memory with a walker and an encoder of its own, while the calling thread also writes
/// the finished chunks to the output in order. No thread takes a chunk more than two per thread
/// ahead of the writing, so memory stays bounded however slow the output is.
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

    /// Deepest nesting the limits may allow for a split: the helper threads' stacks are
    /// `helperStackSize` (the default limit is 512 levels).
    static let deepestNesting = 2_048
    static let helperStackSize = 16 << 20

    /// The encoder of the whole document.
    let writer: XMLPlistStreamWriter
    let threads: Int
    let inputSize: Int
    /// The most one chunk may hold in memory before the conversion gives up on threads; nil:
    /// 16 times the input's share per chunk, at least 16 MiB.
    var chunkByteLimit: Int?
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
        self.inputSize = inputSize
    }

    /// Writes the children of `container` (just opened in `writer` by `walker`) when it is large
    /// and near the top; false when it is not, and the walker writes them itself.
    func split(
        container: Int, refs: Int, count: Int, isDictionary: Bool, depth: Int,
        walker: inout BinaryPlistEventWalker
    ) throws -> Bool {
        // Objects that do not ascend are checked for overlap all together at the end, which a
        // walk in pieces cannot do; nesting deeper than the helpers' stacks allow stays on one thread.
        guard splitsLeft > 0, depth <= Self.maximumDepth, count >= Self.minimumChildren, walker.table.offsetsAscend,
            walker.limits.maxDepth <= Self.deepestNesting
        else {
            return false
        }
        splitsLeft -= 1
        splits += 1
        let chunkCount = min(count / (Self.minimumChildren / 8), 16 * threads)
        let job = ChunkJob(
            table: walker.table, limits: walker.limits, container: container, refs: refs, count: count,
            isDictionary: isDictionary, depth: depth, encoderDepth: writer.openContainers, chunkCount: chunkCount,
            window: 2 * threads, valuesBefore: walker.valueCount,
            chunkByteLimit: chunkByteLimit ?? max(16 << 20, 16 * inputSize / chunkCount), spareWriters: spareWriters)
        let helpers = (1..<threads).map { _ in
            BackgroundResult(thread: nil, stackSize: Self.helperStackSize) { job.helperWork() }
        }
        // The helpers read the input, which the caller frees once this returns or throws.
        defer {
            job.stop()
            for helper in helpers { helper.get() }
        }
        var chunkWalker = job.makeWalker()
        defer { chunkWalker.deallocate() }
        var written = 0
        /// Puts the next chunk in place once it is written; false when it is not yet (or none is left).
        func writeNext(waiting: Bool) throws -> Bool {
            guard written < chunkCount, let chunk = try job.finishedChunk(written, waiting: waiting) else { return false }
            try writer.appendFragment(chunk.writer.encoded, items: chunk.items)
            job.recycle(chunk.writer)
            walker.valueCount += chunk.values
            written += 1
            job.wrote(written)
            if walker.valueCount > walker.limits.maxValues {
                throw Diagnostic.plist(.limitExceeded, "the plist expands to more than \(walker.limits.maxValues) values")
            }
            return true
        }
        taking: while true {
            switch job.take() {
            case .chunk(let index):
                job.write(index, with: &chunkWalker)
                while try writeNext(waiting: false) {}
            case .wait:
                _ = try writeNext(waiting: true)
                while try writeNext(waiting: false) {}
            case .done:
                break taking
            }
        }
        while try writeNext(waiting: true) {}
        return true
    }
}

/// One split container's chunks, shared by the threads that write them.
///
/// `@unchecked Sendable`: the input and the settings are read-only; `next`, `written`, `failure`
/// and the finished chunks are behind `state`'s lock, and a chunk's writer is touched only by the
/// thread that fills it until it is marked finished, then only by the thread that writes it out.
private final class ChunkJob: @unchecked Sendable {
    struct Chunk {
        let writer: XMLPlistStreamWriter
        let items: Int
        let values: Int
    }

    private struct State {
        var next = 0
        /// How many chunks the calling thread has put in place.
        var written = 0
        var failure: (any Error)?
        var chunks: [Chunk?]
        /// Whether each chunk is written (or failed), for the calling thread to take once.
        var finished: [Bool]
    }

    enum Turn {
        case chunk(Int)
        /// `window` chunks are taken and not yet put in place: wait for the calling thread.
        case wait
        /// Every chunk is taken, or one failed.
        case done
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
    /// The most chunks taken ahead of the calling thread's writing, which bounds the memory held
    /// (each chunk at most `chunkByteLimit`) whatever the file or the disk.
    let window: Int
    let valuesBefore: Int
    let chunkByteLimit: Int
    private let spareWriters: Locked<[XMLPlistStreamWriter]>
    /// Waited on by a helper for a place in the window (a chunk put in place, or the job stopped),
    /// and by the calling thread for the next chunk to be finished.
    private let state: Monitor<State>

    init(
        table: BinaryPlistObjectTable, limits: PlistLimits, container: Int, refs: Int, count: Int,
        isDictionary: Bool, depth: Int, encoderDepth: Int, chunkCount: Int, window: Int, valuesBefore: Int,
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
        self.window = window
        self.valuesBefore = valuesBefore
        self.chunkByteLimit = chunkByteLimit
        self.spareWriters = spareWriters
        state = Monitor(State(chunks: Array(repeating: nil, count: chunkCount), finished: Array(repeating: false, count: chunkCount)))
    }

    /// Room for a chunk's XML, assuming the container holds all of the input and XML takes four
    /// times the bytes of binary (pages not written to cost nothing).
    private var expectedChunkSize: Int { min(chunkByteLimit, 4 * table.bytes.count / chunkCount + (1 << 16)) }

    /// The children of chunk `index`.
    func range(of index: Int) -> Range<Int> { (index * count / chunkCount)..<((index + 1) * count / chunkCount) }

    /// What the asking thread is to do next.
    func take() -> Turn {
        state.withLock { turn(&$0) }
    }

    private func turn(_ state: inout State) -> Turn {
        guard state.failure == nil, state.next < chunkCount else { return .done }
        guard state.next < state.written + window else { return .wait }
        defer { state.next += 1 }
        return .chunk(state.next)
    }

    /// Records that the first `written` chunks are in place.
    func wrote(_ written: Int) {
        state.withLock { $0.written = written }
    }

    /// Stops handing out chunks and wakes the helpers that wait for the window.
    func stop() {
        state.withLock { state in
            if state.failure == nil && state.next < chunkCount { state.failure = CancellationError() }
            state.next = chunkCount
        }
    }

    /// A walker of its own for one thread, its sink replaced for each chunk; free with `deallocate()`.
    func makeWalker() -> BinaryPlistEventWalker {
        let walker = BinaryPlistEventWalker(
            table: table, limits: limits,
            sink: XMLPlistStreamWriter(fragmentAtDepth: encoderDepth, inDictionary: isDictionary, output: ByteOutput()))
        walker.marks[container] = BinaryPlistEventWalker.inProgress
        return walker
    }

    /// A helper thread's part: chunks until none is left or one failed.
    func helperWork() {
        var walker = makeWalker()
        defer { walker.deallocate() }
        while true {
            // A helper waits for a place in the window instead of taking `.wait`.
            switch state.wait(until: { state -> Turn? in
                let turn = turn(&state)
                if case .wait = turn { return nil }
                return turn
            }) {
            case .chunk(let index): write(index, with: &walker)
            case .wait, .done: return
            }
        }
    }

    /// Writes chunk `index` into memory and hands it over (or the failure that stops the job).
    func write(_ index: Int, with walker: inout BinaryPlistEventWalker) {
        let chunk: Chunk?
        do {
            chunk = try encode(index, with: &walker)
        } catch {
            chunk = nil
            state.withLock { state in
                if state.failure == nil || state.failure is CancellationError { state.failure = error }
            }
        }
        state.withLock { state in
            state.chunks[index] = chunk
            state.finished[index] = true
        }
    }

    private func encode(_ index: Int, with walker: inout BinaryPlistEventWalker) throws -> Chunk {
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

    /// Keeps the writer of a chunk put in place for a later chunk (at most `window` of them).
    func recycle(_ writer: XMLPlistStreamWriter) {
        spareWriters.withLock { spare in
            if spare.count < window { spare.append(writer) }
        }
    }

    /// Chunk `index` once it is written (nil when `waiting` is false and it is not yet), handed
    /// over once; throws the failure that stopped the chunks.
    func finishedChunk(_ index: Int, waiting: Bool) throws -> Chunk? {
        // The chunk once finished, handed over once; nil while it is not.
        func handOver(_ state: inout State) throws -> Chunk? {
            guard state.finished[index] else { return nil }
            state.finished[index] = false
            guard let chunk = state.chunks[index] else { throw state.failure ?? CancellationError() }
            state.chunks[index] = nil
            return chunk
        }
        return try waiting ? state.wait(until: handOver) : state.withLock(handOver)
    }
}
