import Foundation
import PlistKit
import SystemSupport

/// An unnamed temporary file that compressed data is appended to from many threads, so
/// packaging memory stays bounded however large the app; libzip reads it back in order.
final class Spool: Sendable {
    let fileDescriptor: Int32
    private let end = Locked<Int64>(0)

    /// Creates the spool in `folder` (next to the output, so it is on the same disk) and unlinks
    /// it at once: it disappears when closed, even after a crash.
    init(in folder: String) throws {
        var template = Array((folder + "/" + FileIO.temporaryPrefix + "spool-\(getpid())-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError("cannot create a temporary file", file: folder) }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Appends `bytes` and returns where they start.
    func append(_ bytes: UnsafeRawBufferPointer) throws -> Int64 {
        let offset = end.withLock { end in
            defer { end += Int64(bytes.count) }
            return end
        }
        let failure = positionedWriteAll(fileDescriptor, bytes, at: offset)
        if failure != 0 { throw SystemError("cannot write a temporary file", code: failure) }
        return offset
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        retryingInterrupted { pread(fileDescriptor, buffer, count, off_t(offset)) }
    }
}

/// A file's data as it will go into the archive: deflated (or stored) bytes in the spool.
struct PreparedEntry {
    var segments: [(offset: Int64, length: Int)] = []
    var uncompressedSize: Int64 = 0
    var compressedSize: Int64 { segments.reduce(0) { $0 + Int64($1.length) } }
    var crc: UInt32 = 0
    var isDeflated = true
}
