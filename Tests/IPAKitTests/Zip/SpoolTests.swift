import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// Compressed data waits in the spool: small pieces in memory up to a limit, the rest in its file.
@Suite struct SpoolTests {
    static func piece(_ index: Int, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
    }

    static func readBack(_ spool: Spool, at offset: Int64, count: Int, inPiecesOf step: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let wanted = min(step, count - done)
            let got = bytes.withUnsafeMutableBytes { spool.read(at: offset + Int64(done), into: $0.baseAddress! + done, count: wanted) }
            guard got > 0 else { break }
            done += got
        }
        return bytes
    }

    @Test func smallPiecesStayInMemoryUntilTheLimitAndLargeOnesGoToTheFile() throws {
        try withTemporaryFolder { folder in
            // Blocks are 1 MiB: a 2 MiB limit holds two. The empty and the one-byte piece and three of
            // 300 KiB fill the first; three more the second; the seventh of 300 KiB finds no room and
            // goes to the file, as does one over the piece limit, while 17 bytes still fit in memory.
            let spool = try Spool(in: folder.path(""), memoryPieceLimit: 300 << 10, memoryLimit: 2 << 20)
            let sizes = [0, 1, 300 << 10, 300 << 10, 300 << 10, 300 << 10, 300 << 10, 300 << 10, 300 << 10, (300 << 10) + 1, 17]
            var offsets: [Int64] = []
            for (index, size) in sizes.enumerated() {
                offsets.append(try Self.piece(index, count: size).withUnsafeBytes { try spool.append($0) })
            }
            let inMemory = offsets.map { $0 >= Spool.memoryBase }
            #expect(inMemory == [true, true, true, true, true, true, true, true, false, false, true])
            var info = stat()
            #expect(fstat(spool.fileDescriptor, &info) == 0 && info.st_size == 2 * (300 << 10) + 1)
            for (index, size) in sizes.enumerated() {
                for step in [size, 4096, 1000] where step > 0 {
                    #expect(
                        Self.readBack(spool, at: offsets[index], count: size, inPiecesOf: step) == Self.piece(index, count: size),
                        "piece \(index)")
                }
            }
        }
    }

    @Test func piecesAppendedFromManyThreadsReadBackIntact() throws {
        try withTemporaryFolder { folder in
            let spool = try Spool(in: folder.path(""), memoryPieceLimit: 4096, memoryLimit: 1 << 20)
            let offsets = Locked<[Int: Int64]>([:])
            DispatchQueue.concurrentPerform(iterations: 2000) { index in
                let offset = try! Self.piece(index, count: index * 3 % 5000).withUnsafeBytes { try spool.append($0) }
                offsets.withLock { $0[index] = offset }
            }
            let all = offsets.value
            // Some went to memory and some, past the limit or over 4096 bytes, to the file.
            #expect(all.values.contains { $0 >= Spool.memoryBase } && all.values.contains { $0 < Spool.memoryBase })
            for index in 0..<2000 {
                let count = index * 3 % 5000
                #expect(Self.readBack(spool, at: all[index]!, count: count, inPiecesOf: 1 << 20) == Self.piece(index, count: count))
            }
        }
    }
}
