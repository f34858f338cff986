import CLinux
import Glibc

/// A detached POSIX thread that runs one closure: what ``BackgroundResult`` and the command's own
/// thread start on. Foundation's `Thread` sets up its object, its name and its run loop state on
/// every thread it starts; a command that starts two or three threads on its way to the first
/// byte of work paid for that before any of them began.
public enum PosixThread {
    /// The longest name Linux keeps for a thread, in bytes (without the terminating NUL).
    static let maxNameBytes = 15

    /// Starts `body` on a new detached thread, with a stack of `stackSize` bytes when given, named
    /// `name` (see ``shortName(_:)``) when given, first run on another CPU than this thread's
    /// where there is one (``Placement``; a thread refused with it is asked for again without it,
    /// as glibc fails the start when it cannot set the CPUs, under a sandbox that forbids it or
    /// a CPU set changed meanwhile). Returns false, having started nothing, when the system
    /// refuses the thread (out of threads or address space for the stack).
    public static func start(name: String? = nil, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        let name = name.map(shortName)
        if let placement = Placement.awayFromThisCPU(), create(name: name, stackSize: stackSize, placement: placement, body) {
            return true
        }
        return create(name: name, stackSize: stackSize, placement: nil, body)
    }

    /// Starts one thread as ``start(name:stackSize:_:)`` describes, first on `placement`'s CPUs when given.
    private static func create(name: String?, stackSize: Int?, placement: Placement?, _ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return false }
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize, pthread_attr_setstacksize(&attributes, stackSize) != 0 { return false }
        if let placement {
            guard adhocbuild_attr_set_cpus(&attributes, placement.first.count * MemoryLayout<UInt>.stride, placement.first) == 0
            else { return false }
        }
        let job = Unmanaged.passRetained(Job(name: name, allowed: placement?.allowed, body: body))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { argument in
                let job = Unmanaged<Job>.fromOpaque(argument!).takeRetainedValue()
                if let allowed = job.allowed { _ = adhocbuild_set_allowed_cpus(allowed, allowed.count) }
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
    /// between characters (the kernel would cut inside one's UTF-8 bytes). Worked out on the
    /// bytes: generic sequence code cost its first use on the way to a command's first step.
    public static func shortName(_ name: String) -> String {
        let bytes = Array(name.utf8)
        let start = bytes.lastIndex(of: UInt8(ascii: ".")).map { $0 + 1 } ?? 0
        var end = min(bytes.count, start + maxNameBytes)
        // Back to the first byte of a character when the cut falls inside one (continuation bytes are 10xxxxxx).
        if end < bytes.count { while end > start && bytes[end] & 0xC0 == 0x80 { end -= 1 } }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Where a new thread first runs. The kernel puts a new thread on its creator's CPU when its
    /// recent-load figures make that CPU look the less busy, even with another CPU idle (the
    /// creator's CPU is busy with the creator): on this project's 2-core machines the thread that
    /// lists an app waited up to 3 ms behind the command's thread while the other core slept,
    /// until the balancer moved one of them. So a new thread may first run on every CPU this one
    /// may but the one it is running on; once running, it may run on all of them again. (Both CPU
    /// sets are the thread's own request: a container whose CPU set is widened while it runs does
    /// not spread it onto the new CPUs; a thread lives for one command.)
    struct Placement {
        /// The CPUs the new thread may first run on.
        var first: [UInt]
        /// The CPUs it may run on once started: those its creator may.
        var allowed: [UInt]

        /// The CPUs as 1,024 bits, more than Linux's default limit.
        static let words = 16

        /// Nil when this thread may run on one CPU only, or the system does not say.
        static func awayFromThisCPU() -> Placement? {
            var allowed = [UInt](repeating: 0, count: words)
            guard adhocbuild_allowed_cpus(&allowed, words) > 0 else { return nil }
            let cpu = Int(adhocbuild_current_cpu())
            guard cpu >= 0, cpu < words * UInt.bitWidth else { return nil }
            var first = allowed
            first[cpu / UInt.bitWidth] &= ~(1 << UInt(cpu % UInt.bitWidth))
            guard first.contains(where: { $0 != 0 }) else { return nil }
            return Placement(first: first, allowed: allowed)
        }
    }

    private final class Job {
        let name: String?
        let allowed: [UInt]?
        let body: @Sendable () -> Void
        init(name: String?, allowed: [UInt]?, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.allowed = allowed
            self.body = body
        }
    }
}
