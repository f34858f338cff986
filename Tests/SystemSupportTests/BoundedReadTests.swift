import Foundation
import SystemSupport
import TestSupport
import Testing

/// Issue 31: every input has a size limit checked while it is read, so an endless one (a device, a
/// pipe) ends at the limit with one line instead of reading gigabytes and failing with a dump.
@Suite struct BoundedReadTests {
    @Test func aRegularFileOverItsLimitIsRefusedBeforeItIsRead() throws {
        try withTemporaryFolder { folder in
            let path = try folder.write("notes.txt", Data(repeating: 0x61, count: 2000))
            #expect(try FileIO.read(path, limit: 2000).count == 2000)
            #expect(throws: Diagnostic(.file(.limitExceeded), "is 2000 bytes, more than the 1999 bytes adhocbuild reads of it", file: path))
            {
                try FileIO.read(path, limit: 1999)
            }
        }
    }

    @Test func anEndlessDeviceEndsAtItsLimit() throws {
        #expect(throws: Diagnostic(.file(.limitExceeded), "goes on past 65536 bytes, the most adhocbuild reads of it", file: "/dev/zero")) {
            try FileIO.read("/dev/zero", limit: 1 << 16)
        }
    }

    @Test func aFIFOIsReadToItsEndWithinTheLimitAndRefusedPastIt() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let fifo = folder.path("pipe")
            #expect(mkfifo(fifo, 0o600) == 0)
            #expect(try Self.readFIFO(fifo, writing: 100_000, limit: 100_000) == 100_000)
            expectDiagnostic(FileProblem.self) { try Self.readFIFO(fifo, writing: 100_001, limit: 100_000) }
        }
    }

    /// Reads `fifo` with `limit` while another thread writes `count` bytes into it.
    static func readFIFO(_ fifo: String, writing count: Int, limit: Int) throws -> Int {
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            try? handle.write(contentsOf: Data(repeating: 0x62, count: count))
            try? handle.close()
        }
        writer.start()
        defer { while !writer.isFinished { usleep(1000) } }
        return try FileIO.read(fifo, limit: limit).count
    }
}
