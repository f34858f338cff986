import Foundation
import SystemSupport
import Testing

/// The threads the tool starts itself: they run their work, under a name Linux keeps.
@Suite struct PosixThreadTests {
    @Test func aNameIsItsLastPartCutToWhatLinuxKeeps() {
        #expect(PosixThread.shortName("adhocbuild.app-listing") == "app-listing")
        #expect(PosixThread.shortName("signature-check") == "signature-check")
        #expect(PosixThread.shortName("a-name-longer-than-fifteen") == "a-name-longer-t")
        // Cut between characters, never inside one: nine two-byte characters keep seven (14 bytes).
        #expect(PosixThread.shortName("ééééééééé") == "ééééééé")
        #expect(PosixThread.shortName("ends.") == "")
    }

    @Test func theWorkRunsOnAThreadOfItsOwnShownByItsName() {
        let seen = Locked<(name: String, thread: pthread_t)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let started = PosixThread.start(name: "adhocbuild.test-worker", stackSize: 4 << 20) {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            seen.withLock { $0 = (name, pthread_self()) }
            done.signal()
        }
        #expect(started)
        done.wait()
        let result = seen.value
        #expect(result?.name == "test-worker\n")
        #expect(result.map { pthread_equal($0.thread, pthread_self()) == 0 } == true)
    }

    @Test func aStackTheSystemRefusesStartsNothing() {
        // More address space than x86-64 user space has: refused, and the work is not run.
        let ran = Locked(false)
        #expect(!PosixThread.start(stackSize: 1 << 62) { ran.withLock { $0 = true } })
        #expect(!ran.value)
    }

    @Test func aBackgroundResultTheSystemRefusesAThreadIsWorkedOutAtOnce() {
        let result = BackgroundResult<Int, Never>(thread: "adhocbuild.refused", stackSize: 1 << 62) { 42 }
        #expect(result.get() == 42)
    }
}
