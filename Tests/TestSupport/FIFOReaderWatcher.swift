import Foundation
import SystemSupport

/// Watches a FIFO from a thread of its own for a reader: every 5 ms it opens the write end without
/// waiting, which succeeds only while some reader holds the FIFO open (Linux counts a reader that
/// waits in `open` for a writer), and closes it at once, so a reader waiting in `open` goes on and
/// then reads the end of the data. A reader that waits is always seen; one that opens without
/// waiting and closes again at once is seen only if a look falls in between.
public final class FIFOReaderWatcher: Sendable {
    private let state = Locked((stopped: false, sawReader: false))
    private let finished = DispatchSemaphore(value: 0)

    /// Starts watching the FIFO at `path`.
    public init(path: String) {
        let thread = Thread { [state, finished] in
            while !state.value.stopped {
                let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 {
                    state.withLock { $0.sawReader = true }
                    close(fd)
                }
                usleep(5_000)
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops the watch; whether it ever saw a reader.
    public func stop() -> Bool {
        state.withLock { $0.stopped = true }
        finished.wait()
        return state.value.sawReader
    }
}
