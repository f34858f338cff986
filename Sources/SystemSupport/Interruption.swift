import Foundation

/// What a Ctrl-C (SIGINT), a `kill` (SIGTERM) or a closed terminal (SIGHUP) does to adhocbuild: this
/// process's work files (``WorkFiles``) are removed, one line says so, and the process exits with the
/// conventional status, 128 and the signal's number (130, 143, 129).
///
/// The signals are blocked in every thread (``install(nothingDone:)`` runs before any other thread
/// is started, and threads inherit the mask) and taken by one thread of its own with `sigwait`, so the
/// clean-up is ordinary code, not a signal handler. It waits for a ``pointOfNoReturn(done:_:)`` under
/// way to finish (a release being moved into DIST and its `latest` link and index written; an app
/// swapped with its signed copy), then takes ``WorkFiles``' lock for good, so no worker thread can make
/// a work file or folder again, removes them, and exits with `_exit` (no `atexit` work, no flushing of
/// buffers that worker threads may be writing). A signal the process was started ignoring (`nohup`, a
/// background job of a script) stays ignored.
public enum Interruption {
    /// Held by a point of no return, and by the clean-up from the moment it starts.
    private static let commitLock = NSRecursiveLock()
    /// What the one line says was left as it was, until a point of no return has passed; then what it
    /// did. Read and written under `commitLock`.
    nonisolated(unsafe) private static var outcome = "nothing was changed"

    /// Blocks SIGINT, SIGTERM and SIGHUP in this thread (and so in every thread it starts) and starts the
    /// thread that cleans up when one arrives. `nothingDone` is what the line says of an interrupted run
    /// (`nothing was changed`). Call it first, before any other thread is started.
    public static func install(nothingDone: String = "nothing was changed") {
        outcome = nothingDone
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] where !isIgnored(signal) { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        awaited = signals
        // A POSIX thread: Foundation's `Thread` would be set up in every command for this alone.
        // Without it the signals would stay blocked and unanswered: they end the process as they would by default.
        if !PosixThread.start(name: "interrupt", { Interruption.waitAndCleanUp() }) { pthread_sigmask(SIG_UNBLOCK, &signals, nil) }
    }

    /// The signals the clean-up thread waits for; set once, before it starts.
    nonisolated(unsafe) private static var awaited = sigset_t()

    /// Sets what the line says was left as it was (`nothing was published`), for a command that knows better.
    public static func setNothingDone(_ text: String) {
        commitLock.lock()
        defer { commitLock.unlock() }
        outcome = text
    }

    /// Runs `body`, a step that must finish (or undo itself) once begun, to its end before an interrupt
    /// cleans up; after it, the line says `done` (`DIST/Staging/1.4-42 was published`) instead of what
    /// was left as it was. Points of no return may nest.
    public static func pointOfNoReturn<T>(done: String? = nil, _ body: () throws -> T) rethrows -> T {
        commitLock.lock()
        defer { commitLock.unlock() }
        let value = try body()
        if let done { outcome = done }
        return value
    }

    /// ``pointOfNoReturn(done:_:)`` for a step that puts `target` in place: the line then says it was
    /// written, unless it is inside a work folder (which the clean-up removes).
    public static func pointOfNoReturn<T>(writing target: String, _ body: () throws -> T) rethrows -> T {
        pause(at: "commit:" + FileIO.split(target).name)
        return try pointOfNoReturn(done: target.contains("/" + FileIO.temporaryPrefix) ? nil : "\(target) was written", body)
    }

    /// The environment variable a test sets to stop the process at a named point (``pause(at:)``).
    static let pauseVariable = "ADHOCBUILD_TEST_PAUSE_AT"

    /// A test hook, not for users: when ``pauseVariable`` names `point`, says so on standard error
    /// (`adhocbuild test hook: paused at <point>`) and waits there for a signal, so that a test can
    /// interrupt the process at that point and no other (the first point whose name starts with the
    /// variable's value). Does nothing otherwise. Points: `step:<release step>`, `commit:<name>` just
    /// before a file or folder the user named is put in place, `publish:moved into DIST`, `prune:indexed`
    /// and `prune:hidden` (inside a point of no return, so only a SIGKILL ends the process there); for a
    /// store, `upload:part <n> sent` (a multipart upload), `publish:before build.json`, `publish:before the
    /// index` and `prune:unpublished`.
    public static func pause(at point: String) {
        guard let wanted = getenv(pauseVariable), point.hasPrefix(String(cString: wanted)) else { return }
        let line = Array("adhocbuild test hook: paused at \(point)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        while true { sleep(60) }
    }

    private static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0, let handler = current.__sigaction_handler.sa_handler else { return false }
        return unsafeBitCast(handler, to: Int.self) == 1  // SIG_IGN
    }

    /// The clean-up thread: waits for one of the awaited signals, then cleans up and exits.
    private static func waitAndCleanUp() {
        cleanUp(after: wait(for: awaited))
    }

    /// The first of `signals` to arrive.
    private static func wait(for signals: sigset_t) -> Int32 {
        var signals = signals
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received
    }

    /// Waits for a point of no return under way, removes the work files, says what happened and exits.
    private static func cleanUp(after signal: Int32) -> Never {
        commitLock.lock()
        WorkFiles.removeAllForExit()
        let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][signal] ?? "signal \(signal)"
        let line = Array("error: interrupted by \(name): \(outcome); its work files are removed\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        _exit(128 + signal)
    }
}
