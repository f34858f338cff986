import Foundation

/// Flushes a file's data to disk on another thread while its writer carries on, so that the
/// flush before the file replaces another (`AtomicFileWriter.commit()`) has little left to do.
///
/// On this project's machines a flush costs about a millisecond per megabyte even when the data
/// was already handed to the disk (the storage's own cache is emptied), so it is spread over
/// the write instead of being waited for at the end. A request while a flush runs is dropped:
/// the next one covers it. Failures are ignored here; the final `fsync` reports them.
public final class BackgroundSync: @unchecked Sendable {
    private let worker = SerialWorker(label: "adhocbuild.background-sync")
    private let fileDescriptor: Int32
    /// How many flushes were started, for tests.
    public private(set) var started = 0

    /// `fileDescriptor` must stay open until `wait()` returns.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Starts flushing what was written so far, unless a flush is still running.
    public func request() {
        guard worker.isIdle else { return }
        started += 1
        worker.run { [fileDescriptor] in _ = fdatasync(fileDescriptor) }
    }

    /// Waits for a flush in flight, if any.
    public func wait() {
        worker.wait()
    }
}
