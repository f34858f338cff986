import Foundation
import SystemSupport
import TestSupport
import Testing

@Suite struct BackgroundSyncTests {
    /// A request starts a flush when none runs; `wait()` returns once it is done, and the data is untouched.
    @Test func eachRequestAfterTheLastFlushEndedStartsOne() throws {
        try withTemporaryFolder { folder in
            let path = folder.path("data.bin")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            try #require(fd >= 0)
            defer { close(fd) }
            let sync = BackgroundSync(fileDescriptor: fd)
            sync.wait()  // nothing in flight
            #expect(sync.started == 0)
            for round in 1...3 {
                try [UInt8](repeating: UInt8(round), count: 100_000).withUnsafeBytes { try FileIO.writeAll(fd, $0) }
                sync.request()
                sync.wait()
                #expect(sync.started == round)
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(data.count == 300_000 && data.first == 1 && data.last == 3)
        }
    }
}
