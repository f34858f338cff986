import Foundation
import SystemSupport
import TestSupport
import Testing

/// A regular file read to its end through one buffer (``FileIO/readToEnd(_:through:_:)``): every
/// byte once, in pieces no larger than the buffer, and a failed read as its `errno`.
@Suite struct ReadToEndTests {
    @Test(arguments: [0, 1, 4095, 4096, 4097, 10_000])
    func everyByteArrivesOnceInPiecesOfTheBuffer(size: Int) throws {
        try withTemporaryFolder { folder in
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) })
            let path = try folder.write("file", bytes)
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0)
            defer { close(fd) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
            defer { buffer.deallocate() }
            var read = Data()
            var pieces = 0
            let failure = FileIO.readToEnd(fd, through: buffer) { piece in
                #expect(piece.count <= 4096 && !piece.isEmpty)
                read.append(contentsOf: piece)
                pieces += 1
            }
            #expect(failure == 0)
            #expect(read == bytes)
            // A short piece ends it; a file of whole buffers ends with the empty read after them.
            #expect(pieces == (size + 4095) / 4096)
        }
    }

    @Test func aReadThatFailsGivesItsErrno() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
        defer { buffer.deallocate() }
        #expect(FileIO.readToEnd(-1, through: buffer) { _ in Issue.record("no piece expected") } == EBADF)
    }
}
