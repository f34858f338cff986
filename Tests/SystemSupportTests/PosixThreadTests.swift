import CLinux
import Foundation
import Testing

@testable import SystemSupport

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

    @Test func aBackgroundResultTheSystemRefusesAThreadIsWorkedOutOnTheGlobalQueue() {
        let result = BackgroundResult<Int, Never>(thread: "adhocbuild.refused", stackSize: 1 << 62) { 42 }
        #expect(result.get() == 42)
    }

    /// The CPUs listed in `/proc/thread-self/status` for the calling thread (`Cpus_allowed_list`).
    static func allowedList() -> String {
        let status = (try? String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") } ?? ""
        return line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
    }

    @Test func aNewThreadFirstRunsAwayFromItsCreatorsCPUThenWhereverItsCreatorMay() throws {
        var allowed = [UInt](repeating: 0, count: PosixThread.Placement.words)
        #expect(adhocbuild_allowed_cpus(&allowed, allowed.count) > 0)
        let cpus = allowed.reduce(0) { $0 + $1.nonzeroBitCount }
        guard let placement = PosixThread.Placement.awayFromThisCPU() else {
            #expect(cpus == 1, "no placement with \(cpus) CPUs allowed")
            return
        }
        #expect(placement.allowed == allowed)
        #expect(placement.first.reduce(0) { $0 + $1.nonzeroBitCount } == cpus - 1)
        // Once started, the thread may run wherever this one may.
        let seen = Locked("")
        let done = DispatchSemaphore(value: 0)
        #expect(
            PosixThread.start {
                seen.withLock { $0 = Self.allowedList() }; done.signal()
            })
        done.wait()
        #expect(seen.value == Self.allowedList())
    }

    @Test func aThreadAllowedOneCPUStartsItsThreadsThereToo() {
        // On a thread of its own whose mask is cut to the CPU it runs on (the test's own threads keep theirs).
        let outcome = Locked<(placement: Bool, started: Bool, list: String, own: String)?>(nil)
        let done = DispatchSemaphore(value: 0)
        _ = PosixThread.start {
            let cpu = Int(adhocbuild_current_cpu())
            var one = [UInt](repeating: 0, count: PosixThread.Placement.words)
            one[cpu / UInt.bitWidth] = 1 << UInt(cpu % UInt.bitWidth)
            _ = adhocbuild_set_allowed_cpus(one, one.count)
            let placement = PosixThread.Placement.awayFromThisCPU() != nil
            let inner = Locked("")
            let innerDone = DispatchSemaphore(value: 0)
            let started = PosixThread.start {
                inner.withLock { $0 = Self.allowedList() }; innerDone.signal()
            }
            if started { innerDone.wait() }
            outcome.withLock { $0 = (placement, started, inner.value, Self.allowedList()) }
            done.signal()
        }
        done.wait()
        #expect(outcome.value?.placement == false)
        #expect(outcome.value?.started == true)
        #expect(outcome.value.map { $0.list == $0.own } == true)
    }
}
