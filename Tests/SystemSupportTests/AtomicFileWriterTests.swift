import Foundation
import SystemSupport
import TestSupport
import Testing

@Suite struct AtomicFileWriterTests {
    /// Only a writer that replaces a file flushes on commit, so only then do writers start disk writes early.
    @Test func onlyAWriterThatReplacesAFileFlushesOnCommit() throws {
        try withTemporaryFolder { folder in
            let fresh = try AtomicFileWriter(path: folder.path("new.txt"))
            #expect(!fresh.flushesOnCommit)
            try Array("one".utf8).withUnsafeBytes { try FileIO.writeAll(fresh.fileDescriptor, $0) }
            try fresh.commit()
            let replacing = try AtomicFileWriter(path: folder.path("new.txt"))
            #expect(replacing.flushesOnCommit)
            try Array("two!".utf8).withUnsafeBytes { try FileIO.writeAll(replacing.fileDescriptor, $0) }
            try replacing.commit()
            #expect(try String(contentsOfFile: folder.path("new.txt"), encoding: .utf8) == "two!")
        }
    }
}
