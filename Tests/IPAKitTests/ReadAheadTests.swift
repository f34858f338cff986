@testable import IPAKit
import Testing

/// Read-ahead advises each file once, in order, and stays within its window of bytes and files.
@Suite struct ReadAheadTests {
    final class Recorder {
        var advised: [String] = []
    }

    @Test func eachFileIsAdvisedOnceInOrderWithinTheByteWindow() {
        let recorder = Recorder()
        let paths = (0..<10).map { "f\($0)" }
        var readAhead = ReadAhead(paths: paths, sizes: Array(repeating: 10 << 20, count: 10), window: 32 << 20, files: 64) {
            recorder.advised.append($0)
        }
        readAhead.willRead(0)
        // The file itself, then files ahead until 32 MiB are on their way (the fourth crosses it).
        #expect(recorder.advised == ["f0", "f1", "f2", "f3", "f4"])
        readAhead.willRead(1)
        #expect(recorder.advised.last == "f5")
        for index in 2..<10 { readAhead.willRead(index) }
        #expect(recorder.advised == paths)
    }

    @Test func manySmallFilesAreCappedByCount() {
        let recorder = Recorder()
        var readAhead = ReadAhead(paths: (0..<100).map { "f\($0)" }, sizes: Array(repeating: 100, count: 100), files: 8) {
            recorder.advised.append($0)
        }
        readAhead.willRead(0)
        #expect(recorder.advised.count == 8)
        readAhead.willRead(1)
        #expect(recorder.advised.count == 9)
    }

    @Test func aFileLargerThanTheWindowHoldsBackTheOnesAfterItUntilItIsRead() {
        let recorder = Recorder()
        var readAhead = ReadAhead(paths: ["small", "huge", "after"], sizes: [1, 1 << 40, 1], window: 1 << 20, files: 64) {
            recorder.advised.append($0)
        }
        readAhead.willRead(0)
        #expect(recorder.advised == ["small", "huge"])  // the window is full
        readAhead.willRead(1)
        #expect(recorder.advised == ["small", "huge", "after"])
        readAhead.willRead(2)
        #expect(recorder.advised == ["small", "huge", "after"])
    }
}
