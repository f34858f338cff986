import Foundation

/// An append-only byte buffer that writers fill, either kept in memory or flushed to a file
/// descriptor in chunks so memory stays bounded however large the output.
struct ByteOutput {
    var bytes: [UInt8] = []
    private let fileDescriptor: Int32?
    private let flushThreshold = 1 << 20

    /// In memory.
    init(capacity: Int = 4096) {
        fileDescriptor = nil
        bytes.reserveCapacity(capacity)
    }

    /// Flushed to `fileDescriptor` (which the caller owns) whenever a megabyte has gathered.
    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        bytes.reserveCapacity(flushThreshold + 4096)
    }

    @inline(__always) mutating func append(_ byte: UInt8) { bytes.append(byte) }
    @inline(__always) mutating func append(_ raw: UnsafeRawBufferPointer) { bytes.append(contentsOf: raw) }
    @inline(__always) mutating func append(_ array: [UInt8]) { bytes.append(contentsOf: array) }
    mutating func append(_ string: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }
    mutating func append(_ string: String) { bytes.append(contentsOf: string.utf8) }

    /// Writes what has gathered to the file when it is large enough (no-op in memory).
    @inline(__always) mutating func flushIfLarge() throws {
        if fileDescriptor != nil && bytes.count >= flushThreshold { try flush() }
    }

    mutating func flush() throws {
        guard let fileDescriptor else { return }
        try bytes.withUnsafeBytes { try FileIO.writeAll(fileDescriptor, $0) }
        bytes.removeAll(keepingCapacity: true)
    }
}
