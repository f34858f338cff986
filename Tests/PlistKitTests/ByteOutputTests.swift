import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import PlistKit

@Suite struct ByteOutputTests {
    /// Appends of every kind, past the initial capacity many times over, keep every byte in order.
    @Test func growingKeepsEveryByteInOrder() {
        var out = ByteOutput(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<2_000 {
            let chunk = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
            out.append(chunk)
            expected += chunk
            out.append(UInt8(truncatingIfNeeded: round))
            expected.append(UInt8(truncatingIfNeeded: round))
            out.append(0x09, times: round % 5)
            expected += Array(repeating: 0x09, count: round % 5)
            out.append("<key>")
            expected += Array("<key>".utf8)
            out.write(maximum: 21) { PlistInteger(Int64(round) - 1000).writeDecimal(to: $0) }
            expected += Array(String(round - 1000).utf8)
        }
        #expect(out.count == expected.count)
        #expect(out.bytes == expected)
        out.truncate(to: 10)
        #expect(out.bytes == Array(expected[..<10]))
    }
}

@Suite struct ByteOutputFileTests {
    /// Runs `body` with a new empty file's descriptor and returns what it wrote to the file.
    func writtenToFile(_ body: (Int32) throws -> Void) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("byteoutput-\(UUID().uuidString)").path
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        try body(fd)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// 600 KiB through a file output (two flushes on the way, one at the end): what reached the
    /// file, what should have, and how many flushes started writeback.
    func fill(startsWriteback: Bool) throws -> (written: [UInt8], expected: [UInt8], writebacks: Int, syncs: Int) {
        var expected: [UInt8] = []
        var writebacks = 0
        var syncs = 0
        let written = try writtenToFile { fd in
            var out = ByteOutput(fileDescriptor: fd, startsWriteback: startsWriteback)
            for round in 0..<(600 * 1024 / 100) {
                let line = (0..<100).map { UInt8(truncatingIfNeeded: round &+ $0) }
                out.append(line)
                expected += line
                try out.flushIfLarge()
            }
            try out.flush()
            #expect(out.count == 0)
            writebacks = out.writebacksStarted
            syncs = out.backgroundSyncsStarted
        }
        return (written, expected, writebacks, syncs)
    }

    /// With writeback, the two flushes on the way ask for a flush to disk in the background (the
    /// second only if the first is done); the last one leaves it to the caller's own flush.
    @Test func writebackIsStartedOnlyWhenAskedAndTheFileIsTheSameEitherWay() throws {
        let asked = try fill(startsWriteback: true)
        let notAsked = try fill(startsWriteback: false)
        #expect(asked.written == asked.expected)
        #expect(notAsked.written == notAsked.expected)
        #expect(asked.writebacks == 3)
        #expect(notAsked.writebacks == 0)
        #expect((1...2).contains(asked.syncs))
        #expect(notAsked.syncs == 0)
    }

    /// A buffer that grew past the usual size for one large append keeps every byte in order.
    @Test func aBufferGrownForALargeAppendKeepsEveryByteInOrder() throws {
        var expected: [UInt8] = []
        let written = try writtenToFile { fd in
            var out = ByteOutput(fileDescriptor: fd, startsWriteback: false)
            for round in 0..<12 {
                let size = round % 3 == 1 ? 900_000 + round : 70_000 + round * 1_000
                let chunk = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ round) }
                out.append(chunk)
                expected += chunk
                try out.flushIfLarge()
            }
            try out.flush()
        }
        #expect(written == expected)
    }

    /// Blocks passed through, large ones written where they are and small ones gathered, reach
    /// the file in order between ordinary appends, with writeback started for each large one.
    @Test func passedThroughBlocksKeepTheirPlaceInTheFile() throws {
        var expected: [UInt8] = []
        var writebacks = 0
        let written = try writtenToFile { fd in
            var out = ByteOutput(fileDescriptor: fd, startsWriteback: true)
            for round in 0..<10 {
                let size = round % 2 == 0 ? 300_000 + round : 5_000 + round
                let block = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ round) }
                out.append("<gap>")
                expected += Array("<gap>".utf8)
                try block.withUnsafeBytes { try out.append(passingThrough: $0) }
                expected += block
            }
            out.append("<end>")
            expected += Array("<end>".utf8)
            try out.flush()
            writebacks = out.writebacksStarted
        }
        #expect(written == expected)
        // Five large blocks, each after a write of what had gathered before it, then the last flush.
        #expect(writebacks == 11)
    }

    /// In memory with a limit, the check that would flush a file fails once the limit is passed.
    @Test func anInMemoryOutputFailsPastItsLimit() throws {
        var out = ByteOutput(capacity: 64, limit: 1_000)
        out.append([UInt8](repeating: 0x41, count: 1_000))
        try out.flushIfLarge()
        out.append(0x42)
        expectDiagnostic(PlistProblem.self) { try out.flushIfLarge() }
        #expect(out.count == 1_001)
    }

    /// A chunk that cannot be written is a file diagnostic from the flush that writes it.
    @Test func aFailedWriteIsThrownAsAFileDiagnostic() throws {
        let fd = open("/dev/full", O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var out = ByteOutput(fileDescriptor: fd, startsWriteback: false)
        out.append([UInt8](repeating: 0x41, count: 300_000))
        expectDiagnostic(FileProblem.self) {
            try out.flushIfLarge()
            out.append("<plist/>")
            try out.flush()
        }
    }
}
