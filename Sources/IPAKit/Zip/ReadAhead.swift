import Foundation
import SystemSupport

/// Opens files shortly before they are read, on a thread of its own, and asks the kernel to
/// start reading them, so that on a cold disk the next files are already on their way while
/// this one is copied (many small files otherwise cost one disk round trip each). The reader
/// takes each file's descriptor from here, so opening them is off its path too (storing the
/// bench tree's 2,000 files went about 10% faster for that).
///
/// It keeps up to `window` bytes, and fewer than `files` files, open and advised ahead of the
/// last one taken. Advice is only a hint: a file that cannot be opened here is opened again by
/// the reader, which reports why. Call ``stop()`` when done: it ends the opening thread and
/// closes the descriptors never taken.
// @unchecked Sendable: every mutable property but `opener` (set in init before another thread
// sees the read-ahead) is guarded by `condition`.
final class ReadAhead: @unchecked Sendable {
    private let paths: [String]
    private let sizes: [Int64]
    private let window: Int64
    private let files: Int
    private let openAhead: @Sendable (String) -> Int32
    /// Guards everything below; signalled whenever a file is opened or taken.
    private let condition = NSCondition()
    /// Descriptors opened ahead and not yet taken (-1 for a file that could not be opened), by file index.
    private var opened: [Int: Int32] = [:]
    /// The next file the opener opens, the last one taken, and the bytes opened beyond it.
    private var next = 0
    private var taken = -1
    private var bytesAhead: Int64 = 0
    private var stopped = false
    /// The opening thread; set once in init, waited for by stop().
    private var opener: BackgroundResult<Void, Never>?

    /// `openAhead` opens a file and advises it, returning its descriptor or -1 (a closure only
    /// so tests can watch the order); it runs on the read-ahead's thread.
    init(
        paths: [String], sizes: [Int64], window: Int64 = 32 << 20, files: Int = 64,
        openAhead: @escaping @Sendable (String) -> Int32 = { ReadAhead.openWillNeed($0) }
    ) {
        self.paths = paths
        self.sizes = sizes
        self.window = window
        self.files = files
        self.openAhead = openAhead
        // A thread of its own (it spends its time waiting for room), holding the read-ahead
        // until stop() ends it.
        opener = BackgroundResult(thread: "adhocbuild.read-ahead") { [self] in openFiles() }
    }

    deinit { for fd in opened.values where fd >= 0 { close(fd) } }

    /// Stops opening ahead, waits for the opening thread to end, and closes the descriptors never
    /// taken. (Not left to deinit: the thread's closure holds the read-ahead until the thread
    /// object goes, which may be after stop() returns.)
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        opener?.get()
        condition.lock()
        for fd in opened.values where fd >= 0 { close(fd) }
        opened.removeAll()
        condition.unlock()
    }

    /// Opens `path` and tells the kernel the whole file will be read soon (`POSIX_FADV_WILLNEED`).
    static func openWillNeed(_ path: String) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED) }
        return fd
    }

    /// Hands over file `index`'s descriptor (the caller closes it), or -1 when it could not be
    /// opened; files are taken in order.
    func descriptor(for index: Int) -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        while taken < index {
            taken += 1
            if taken < next { bytesAhead -= sizes[taken] }
        }
        condition.broadcast()
        while next <= index && !stopped { condition.wait() }
        return opened.removeValue(forKey: index) ?? -1
    }

    /// Waits until the opening thread may open nothing more before another file is taken (for tests).
    func waitUntilIdle() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped && mayOpenNext { condition.wait() }
    }

    /// Whether the opening thread may open file `next` now: the next one to be taken always,
    /// others while both windows have room.
    private var mayOpenNext: Bool {
        next < paths.count && (next <= taken + 1 || (next - taken < files && bytesAhead < window))
    }

    private func openFiles() {
        condition.lock()
        while true {
            while !stopped && next < paths.count && !mayOpenNext { condition.wait() }
            guard !stopped && next < paths.count else { break }
            let index = next
            condition.unlock()
            let fd = openAhead(paths[index])
            condition.lock()
            opened[index] = fd
            next += 1
            if index > taken { bytesAhead += sizes[index] }
            condition.broadcast()
        }
        condition.unlock()
    }
}
