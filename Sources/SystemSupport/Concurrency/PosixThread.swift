import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A detached POSIX thread that runs one closure: what ``BackgroundResult`` and the command's own
/// thread start on. Foundation's `Thread` sets up its object, its name and its run loop state on
/// every thread it starts; a command that starts two or three threads on its way to the first
/// byte of work paid for that before any of them began.
public enum PosixThread {
    /// The longest name Linux keeps for a thread, in bytes (without the terminating NUL).
    static let maxNameBytes = 15

    /// Starts `body` on a new detached thread, with a stack of `stackSize` bytes when given, named
    /// `name` (see ``shortName(_:)``) when given. Returns false, having started nothing, when the
    /// system refuses the thread (out of threads or address space for the stack).
    public static func start(name: String? = nil, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize, pthread_attr_setstacksize(&attributes, stackSize) != 0 { return false }
        let job = Unmanaged.passRetained(Job(name: name.map(shortName), body: body))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { argument in
                let job = Unmanaged<Job>.fromOpaque(argument!).takeRetainedValue()
                if let name = job.name { _ = adhocbuild_name_this_thread(name) }
                job.body()
                return nil
            }, job.toOpaque())
        guard started == 0 else {
            job.release()
            return false
        }
        return true
    }

    /// The name a thread is shown by (`ps -L`, `perf`, a core dump): the last dot-separated part
    /// of `name` (`adhocbuild.app-listing` is `app-listing`), cut to the 15 bytes Linux keeps,
    /// at a character boundary. A longer name would not be set at all.
    public static func shortName(_ name: String) -> String {
        let last = name.split(separator: ".", omittingEmptySubsequences: false).last.map(String.init) ?? name
        var kept = ""
        for character in last {
            guard kept.utf8.count + String(character).utf8.count <= maxNameBytes else { break }
            kept.append(character)
        }
        return kept
    }

    private final class Job {
        let name: String?
        let body: @Sendable () -> Void
        init(name: String?, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
