import Foundation
@testable import IPAKit
import TestSupport
import Testing

/// Read-ahead opens and advises each file once, in order, stays within its window of bytes and
/// files, and hands each file's descriptor to the reader.
@Suite struct ReadAheadTests {
    final class Recorder {
        var advised: [String] = []
    }

    @Test func eachFileIsAdvisedOnceInOrderWithinTheByteWindow() {
        let recorder = Recorder()
        let paths = (0..<10).map { "f\($0)" }
        let readAhead = ReadAhead(paths: paths, sizes: Array(repeating: 10 << 20, count: 10), window: 32 << 20, files: 64) {
            recorder.advised.append($0)
            return -1
        }
        _ = readAhead.descriptor(for: 0)
        // The file itself, then files ahead until 32 MiB are on their way (the fourth crosses it).
        #expect(recorder.advised == ["f0", "f1", "f2", "f3", "f4"])
        _ = readAhead.descriptor(for: 1)
        #expect(recorder.advised.last == "f5")
        for index in 2..<10 { _ = readAhead.descriptor(for: index) }
        #expect(recorder.advised == paths)
    }

    @Test func manySmallFilesAreCappedByCount() {
        let recorder = Recorder()
        let readAhead = ReadAhead(paths: (0..<100).map { "f\($0)" }, sizes: Array(repeating: 100, count: 100), files: 8) {
            recorder.advised.append($0)
            return -1
        }
        _ = readAhead.descriptor(for: 0)
        #expect(recorder.advised.count == 8)
        _ = readAhead.descriptor(for: 1)
        #expect(recorder.advised.count == 9)
    }

    @Test func aFileLargerThanTheWindowHoldsBackTheOnesAfterItUntilItIsRead() {
        let recorder = Recorder()
        let readAhead = ReadAhead(paths: ["small", "huge", "after"], sizes: [1, 1 << 40, 1], window: 1 << 20, files: 64) {
            recorder.advised.append($0)
            return -1
        }
        _ = readAhead.descriptor(for: 0)
        #expect(recorder.advised == ["small", "huge"])  // the window is full
        _ = readAhead.descriptor(for: 1)
        #expect(recorder.advised == ["small", "huge", "after"])
        _ = readAhead.descriptor(for: 2)
        #expect(recorder.advised == ["small", "huge", "after"])
    }

    @Test func eachFileIsHandedOverOpenOnItsOwnContentAndTheRestAreClosedAtTheEnd() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let paths = try (0..<5).map { try folder.write("f\($0)", "content \($0)") }
        let opened = Recorder()
        var descriptors: [Int32] = []
        var readAhead: ReadAhead? = ReadAhead(paths: paths, sizes: Array(repeating: 9, count: 5)) { path in
            opened.advised.append(path)
            let fd = ReadAhead.openWillNeed(path)
            descriptors.append(fd)
            return fd
        }
        for index in 0..<3 {
            let fd = readAhead!.descriptor(for: index)
            #expect(fd == descriptors[index])
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = read(fd, &bytes, bytes.count)
            close(fd)
            #expect(String(decoding: bytes[0..<max(0, count)], as: UTF8.self) == "content \(index)")
        }
        #expect(opened.advised == paths)
        // Files 3 and 4 were opened ahead and never taken: dropping the read-ahead closes them.
        // (Another test may reuse a number meanwhile, so a number counts as closed when it no
        // longer refers to that file.)
        func inode(_ fd: Int32) -> UInt? {
            var info = stat()
            return fstat(fd, &info) == 0 ? UInt(info.st_ino) : nil
        }
        let held = descriptors[3...].map { ($0, inode($0)) }
        #expect(held.allSatisfy { $0.1 != nil })
        readAhead = nil
        #expect(held.allSatisfy { inode($0.0) != $0.1 })
    }

    @Test func aFileThatCannotBeOpenedAheadIsLeftToTheReader() {
        let readAhead = ReadAhead(paths: ["/nonexistent/adhocbuild/file"], sizes: [1])
        #expect(readAhead.descriptor(for: 0) == -1)
    }
}
