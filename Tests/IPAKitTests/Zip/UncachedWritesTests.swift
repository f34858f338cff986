import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import IPAKit

/// The aligned bulk of an archive written around the page cache (``UncachedWrites``): what is read
/// back is what was written, anything unaligned is left to the caller, and a disk slower than the
/// minimum rate ends the uncached writes after the trial.
@Suite struct UncachedWritesTests {
    /// `count` bytes of a pattern that differs from block to block, in an aligned buffer.
    private func alignedBytes(_ count: Int, seed: UInt8) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: UncachedWrites.alignment)
        for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index >> 12) &+ seed }
        return buffer
    }

    /// An empty file in `folder`, open for cached writes.
    private func makeFile(_ folder: TemporaryFolder) throws -> (path: String, descriptor: Int32) {
        let path = folder.path("out.bin")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        return (path, descriptor)
    }

    @Test func alignedWritesReadBackAsWrittenWithTheTailWrittenThroughTheCache() throws {
        try withTemporaryFolder { folder in
            let (path, descriptor) = try makeFile(folder)
            defer { close(descriptor) }
            let writes = UncachedWrites(path: path)
            // Where the file system takes no uncached writes (tmpfs before Linux 6.6), they are off
            // and every byte goes through the cache; the bytes are checked all the same.
            let block = alignedBytes(3 * UncachedWrites.alignment, seed: 1)
            defer { block.deallocate() }
            let done = writes.write(UnsafeRawBufferPointer(block), at: 0)
            #expect(done == (writes.isOn ? block.count : 0))
            if done < block.count {
                #expect(positionedWriteAll(descriptor, UnsafeRawBufferPointer(rebasing: block[done...]), at: Int64(done)) == 0)
            }
            let tail: [UInt8] = [9, 8, 7, 6, 5]
            #expect(tail.withUnsafeBytes { positionedWriteAll(descriptor, $0, at: Int64(block.count)) } == 0)
            let read = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(read == Data(block) + Data(tail))
        }
    }

    @Test func anUnalignedOffsetLengthOrAddressIsLeftToTheCaller() throws {
        try withTemporaryFolder { folder in
            let (path, descriptor) = try makeFile(folder)
            defer { close(descriptor) }
            let writes = UncachedWrites(path: path)
            let block = alignedBytes(2 * UncachedWrites.alignment, seed: 2)
            defer { block.deallocate() }
            let whole = UnsafeRawBufferPointer(block)
            #expect(writes.write(whole, at: 512) == 0)
            #expect(writes.write(UnsafeRawBufferPointer(rebasing: whole[0..<100]), at: 0) == 0)
            #expect(writes.write(UnsafeRawBufferPointer(rebasing: whole[1..<(1 + UncachedWrites.alignment)]), at: 0) == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        }
    }

    @Test func writesSlowerThanTheMinimumRateStopAfterTheTrial() throws {
        try withTemporaryFolder { folder in
            let (path, descriptor) = try makeFile(folder)
            defer { close(descriptor) }
            // No disk writes infinitely fast: the trial ends the uncached writes.
            let writes = UncachedWrites(path: path, minimumRate: .infinity)
            guard writes.isOn else { return }  // off from the start here: nothing to stop
            let block = alignedBytes(1 << 20, seed: 3)
            defer { block.deallocate() }
            var offset: Int64 = 0
            while offset < Int64(UncachedWrites.trialBytes) {
                #expect(writes.write(UnsafeRawBufferPointer(block), at: offset) == block.count)
                offset += Int64(block.count)
            }
            #expect(!writes.isOn)
            #expect(writes.write(UnsafeRawBufferPointer(block), at: offset) == 0)
        }
    }
}
