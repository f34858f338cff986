import Foundation
import PlistKit
import SystemSupport

/// Where compressed data waits, appended from many threads, until the archive writer reads it
/// back in entry order: small pieces in memory, the rest in an unnamed temporary file, so
/// packaging memory stays bounded however large the app.
///
/// Pieces of up to ``memoryPieceLimit`` bytes are kept in memory blocks, up to ``memoryLimit``
/// bytes in all; an app of 20,000 small files otherwise paid a write and a read system call for
/// each. Offsets from ``memoryBase`` up name bytes in memory, those below it bytes in the file.
final class Spool: @unchecked Sendable {
    // @unchecked: `end` and `memory` are only changed while holding their locks; a block's bytes
    // are written once, under `memory`'s lock, before their offset is handed out, and read after.
    let fileDescriptor: Int32
    private let end = Locked<Int64>(0)
    private let memory: Locked<MemoryBlocks>

    /// Offsets from here up are in memory (far beyond any file the spool could hold).
    static let memoryBase: Int64 = 1 << 62
    static let memoryBlockSize = 1 << 20

    /// Pieces kept in memory are at most this long, and this many bytes at most are kept.
    let memoryPieceLimit: Int
    let memoryLimit: Int

    private struct MemoryBlocks {
        var blocks: [UnsafeMutableRawPointer] = []
        /// Bytes used in the last block.
        var used = 0
    }

    /// Creates the spool in `folder` (next to the output, so it is on the same disk) and unlinks
    /// it at once: it disappears when closed, even after a crash.
    init(in folder: String, memoryPieceLimit: Int = 64 << 10, memoryLimit: Int = 32 << 20) throws {
        var template = Array((folder + "/" + FileIO.temporaryPrefix + "spool-\(getpid())-XXXXXX").utf8CString)
        // Made and unlinked under the lock an interrupt takes, so an interrupt never finds it made and named.
        let fd = WorkFiles.creating { () -> Int32 in
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if fd >= 0 { unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }) }
            return fd
        }
        guard fd >= 0 else { throw Diagnostic.system("cannot create a temporary file", file: folder) }
        fileDescriptor = fd
        self.memoryPieceLimit = min(memoryPieceLimit, Spool.memoryBlockSize)
        self.memoryLimit = memoryLimit
        memory = Locked(MemoryBlocks())
    }

    deinit {
        close(fileDescriptor)
        memory.withLock { for block in $0.blocks { block.deallocate() } }
    }

    /// Appends `bytes` and returns where they start.
    func append(_ bytes: UnsafeRawBufferPointer) throws -> Int64 {
        if bytes.count <= memoryPieceLimit, let offset = keepInMemory(bytes) { return offset }
        let offset = end.withLock { end in
            defer { end += Int64(bytes.count) }
            return end
        }
        let failure = positionedWriteAll(fileDescriptor, bytes, at: offset)
        if failure != 0 { throw Diagnostic.system("cannot write a temporary file", code: failure) }
        return offset
    }

    /// Sets aside `count` bytes of the spool's file, for ``write(_:at:)`` to fill in pieces, and
    /// returns where they start: one segment however many pieces it is written in.
    func reserve(_ count: Int64) -> Int64 {
        end.withLock { end in
            defer { end += count }
            return end
        }
    }

    /// Writes `bytes` at `offset`, inside bytes set aside by ``reserve(_:)``.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        let failure = positionedWriteAll(fileDescriptor, bytes, at: offset)
        if failure != 0 { throw Diagnostic.system("cannot write a temporary file", code: failure) }
    }

    /// Copies `bytes` into a memory block and returns their offset, or nil once the memory is used up.
    private func keepInMemory(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        memory.withLock { memory in
            if memory.blocks.isEmpty || memory.used + bytes.count > Spool.memoryBlockSize {
                guard (memory.blocks.count + 1) * Spool.memoryBlockSize <= memoryLimit else { return nil }
                memory.blocks.append(.allocate(byteCount: Spool.memoryBlockSize, alignment: 16))
                memory.used = 0
            }
            let block = memory.blocks.count - 1
            if let base = bytes.baseAddress { (memory.blocks[block] + memory.used).copyMemory(from: base, byteCount: bytes.count) }
            defer { memory.used += bytes.count }
            return Spool.memoryBase + Int64(block * Spool.memoryBlockSize + memory.used)
        }
    }

    /// Reads up to `count` bytes from `offset` on (within one appended piece) and returns how many
    /// were read, or -1 with `errno` set.
    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        guard offset >= Spool.memoryBase else {
            return retryingInterrupted { pread(fileDescriptor, buffer, count, off_t(offset)) }
        }
        let position = Int(offset - Spool.memoryBase)
        let block = memory.withLock { $0.blocks[position / Spool.memoryBlockSize] }
        buffer.copyMemory(from: block + position % Spool.memoryBlockSize, byteCount: count)
        return count
    }
}

/// Where a prepared entry's bytes are read from by the archive writers: the ``Spool`` the
/// compressors filled, or the archive an unchanged entry is carried over from (``CarriedEntries``).
protocol PreparedBytes: AnyObject, Sendable {
    /// Reads up to `count` bytes from `offset` on (within one segment) and returns how many were
    /// read, or -1 with `errno` set.
    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int
}

extension Spool: PreparedBytes {}

/// A file's data as it will go into the archive: deflated (or stored) bytes in the spool.
struct PreparedEntry {
    var segments: [(offset: Int64, length: Int)] = []
    var uncompressedSize: Int64 = 0
    var compressedSize: Int64 { segments.reduce(0) { $0 + Int64($1.length) } }
    var crc: UInt32 = 0
    var isDeflated = true
    /// Whether the bytes are an unchanged entry's, read from ``CarriedEntries`` instead of the spool.
    var isCarried = false
    /// For a carried entry, the CRC-32 of its stored bytes as they were in the archive they come from.
    var storedCRC: UInt32?
    /// For an entry spliced from its old stream (``DeflateSplice``): each segment's uncompressed size,
    /// and the segment of kept blocks with the CRC-32 of its bytes as written and of what they hold.
    var segmentSizes: [Int]?
    var kept: ZipArchiveVerifier.KeptSegment?
}
