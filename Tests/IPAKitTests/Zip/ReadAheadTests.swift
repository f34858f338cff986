import Foundation
import TestSupport
import Testing

@testable import IPAKit

/// Read-ahead opens and advises each file once, in order, on its own thread, stays within its
/// window of bytes and files, and hands each file's descriptor to the reader.
@Suite struct ReadAheadTests {
    /// What the opening thread did, read from the test's thread.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: [String] = []
        private var descriptors: [Int32] = []

        var advised: [String] { lock.withLock { paths } }
        var opened: [Int32] { lock.withLock { descriptors } }

        func record(_ path: String, _ fd: Int32 = -1) -> Int32 {
            lock.withLock {
                paths.append(path)
                descriptors.append(fd)
            }
            return fd
        }
    }

    @Test func eachFileIsAdvisedOnceInOrderWithinTheByteWindow() {
        let recorder = Recorder()
        let paths = (0..<10).map { "f\($0)" }
        let readAhead = ReadAhead(paths: paths, sizes: Array(repeating: 10 << 20, count: 10), window: 32 << 20, files: 64) {
            recorder.record($0)
        }
        defer { readAhead.stop() }
        _ = readAhead.descriptor(for: 0)
        readAhead.waitUntilIdle()
        // The file itself, then files ahead until 32 MiB are on their way (the fourth crosses it).
        #expect(recorder.advised == ["f0", "f1", "f2", "f3", "f4"])
        _ = readAhead.descriptor(for: 1)
        readAhead.waitUntilIdle()
        #expect(recorder.advised.last == "f5")
        for index in 2..<10 { _ = readAhead.descriptor(for: index) }
        #expect(recorder.advised == paths)
    }

    @Test func manySmallFilesAreCappedByCount() {
        let recorder = Recorder()
        let readAhead = ReadAhead(paths: (0..<100).map { "f\($0)" }, sizes: Array(repeating: 100, count: 100), files: 8) {
            recorder.record($0)
        }
        defer { readAhead.stop() }
        _ = readAhead.descriptor(for: 0)
        readAhead.waitUntilIdle()
        #expect(recorder.advised.count == 8)
        _ = readAhead.descriptor(for: 1)
        readAhead.waitUntilIdle()
        #expect(recorder.advised.count == 9)
    }

    @Test func aFileLargerThanTheWindowHoldsBackTheOnesAfterItUntilItIsRead() {
        let recorder = Recorder()
        let readAhead = ReadAhead(paths: ["small", "huge", "after"], sizes: [1, 1 << 40, 1], window: 1 << 20, files: 64) {
            recorder.record($0)
        }
        defer { readAhead.stop() }
        _ = readAhead.descriptor(for: 0)
        readAhead.waitUntilIdle()
        #expect(recorder.advised == ["small", "huge"])  // the window is full
        _ = readAhead.descriptor(for: 1)
        readAhead.waitUntilIdle()
        #expect(recorder.advised == ["small", "huge", "after"])
        _ = readAhead.descriptor(for: 2)
        #expect(recorder.advised == ["small", "huge", "after"])
    }

    @Test func nothingIsOpenedBeforeItIsNeededWhenTheWindowIsFull() {
        let recorder = Recorder()
        let readAhead = ReadAhead(paths: ["a", "b", "c"], sizes: [1 << 30, 1 << 30, 1 << 30], window: 1 << 20) {
            recorder.record($0)
        }
        defer { readAhead.stop() }
        // Before anything is taken, only the first file is opened: it alone fills the window.
        readAhead.waitUntilIdle()
        #expect(recorder.advised == ["a"])
    }

    @Test func stoppingEndsTheThreadAndTheReaderOpensTheRest() {
        let recorder = Recorder()
        let readAhead = ReadAhead(paths: ["a", "b", "c"], sizes: [1 << 30, 1 << 30, 1 << 30], window: 1 << 20) {
            recorder.record($0)
        }
        readAhead.waitUntilIdle()
        readAhead.stop()
        #expect(readAhead.descriptor(for: 2) == -1)
        #expect(recorder.advised == ["a"])
    }

    @Test func eachFileIsHandedOverOpenOnItsOwnContentAndTheRestAreClosedAtTheEnd() throws {
        try withTemporaryFolder { folder in
            let paths = try (0..<5).map { try folder.write("f\($0)", "content \($0)") }
            let opened = Recorder()
            var readAhead: ReadAhead? = ReadAhead(paths: paths, sizes: Array(repeating: 9, count: 5)) { path in
                opened.record(path, ReadAhead.openWillNeed(path))
            }
            for index in 0..<3 {
                let fd = readAhead!.descriptor(for: index)
                #expect(fd == opened.opened[index])
                var bytes = [UInt8](repeating: 0, count: 32)
                let count = read(fd, &bytes, bytes.count)
                close(fd)
                #expect(String(decoding: bytes[0..<max(0, count)], as: UTF8.self) == "content \(index)")
            }
            readAhead!.waitUntilIdle()
            #expect(opened.advised == paths)
            // Files 3 and 4 were opened ahead and never taken: stopping the read-ahead closes them.
            // (Another test may reuse a number meanwhile, so a number counts as closed when it no
            // longer refers to that file.)
            func inode(_ fd: Int32) -> UInt? {
                var info = stat()
                return fstat(fd, &info) == 0 ? UInt(info.st_ino) : nil
            }
            let held = opened.opened[3...].map { ($0, inode($0)) }
            #expect(held.allSatisfy { $0.1 != nil })
            readAhead!.stop()
            #expect(held.allSatisfy { inode($0.0) != $0.1 })
            readAhead = nil
        }
    }

    @Test func aFileThatCannotBeOpenedAheadIsLeftToTheReader() {
        let readAhead = ReadAhead(paths: ["/nonexistent/adhocbuild/file"], sizes: [1])
        defer { readAhead.stop() }
        #expect(readAhead.descriptor(for: 0) == -1)
    }
}
