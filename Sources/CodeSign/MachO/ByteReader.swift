import Foundation
import SystemSupport

/// Bounds-checked reads of fixed-width integers and byte ranges from a byte buffer.
///
/// Every offset and length that comes from the file goes through checked arithmetic here, so a
/// hostile value becomes a ``Diagnostic`` naming the byte, never an out-of-range trap.
struct ByteReader {
    let bytes: [UInt8]
    /// Where `bytes[0]` sits in the enclosing file, for error locations.
    let base: Int

    init(_ bytes: [UInt8], base: Int = 0) {
        self.bytes = bytes
        self.base = base
    }

    init(_ data: Data, base: Int = 0) { self.init([UInt8](data), base: base) }

    var count: Int { bytes.count }

    /// `offset + length`, or an error when it overflows or passes the end.
    func end(_ offset: Int, _ length: Int, what: String) throws -> Int {
        let (sum, overflow) = offset.addingReportingOverflow(length)
        guard offset >= 0, length >= 0, !overflow, sum <= bytes.count else {
            throw Diagnostic.codeSign(
                at:
                    base &+ max(offset, 0), "\(what) (\(length) bytes at offset \(offset)) runs past the end (\(bytes.count) bytes)")
        }
        return sum
    }

    func slice(_ offset: Int, _ length: Int, what: String) throws -> [UInt8] {
        let stop = try end(offset, length, what: what)
        return Array(bytes[offset..<stop])
    }

    func sub(_ offset: Int, _ length: Int, what: String) throws -> ByteReader {
        ByteReader(try slice(offset, length, what: what), base: base &+ offset)
    }

    func u8(_ offset: Int, what: String = "a byte") throws -> UInt8 {
        _ = try end(offset, 1, what: what)
        return bytes[offset]
    }

    func u32be(_ offset: Int, what: String = "a 32-bit value") throws -> UInt32 {
        _ = try end(offset, 4, what: what)
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func u64be(_ offset: Int, what: String = "a 64-bit value") throws -> UInt64 {
        _ = try end(offset, 8, what: what)
        return bytes[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    func u32(_ offset: Int, bigEndian: Bool, what: String = "a 32-bit value") throws -> UInt32 {
        let value = try u32be(offset, what: what)
        return bigEndian ? value : value.byteSwapped
    }

    func u64(_ offset: Int, bigEndian: Bool, what: String = "a 64-bit value") throws -> UInt64 {
        let value = try u64be(offset, what: what)
        return bigEndian ? value : value.byteSwapped
    }

    /// A NUL-terminated UTF-8 string starting at `offset`, within `limit` bytes (default: to the end).
    func cString(_ offset: Int, limit: Int? = nil, what: String) throws -> String {
        _ = try end(offset, 0, what: what)
        let stop = limit.map { min(bytes.count, offset &+ $0) } ?? bytes.count
        guard offset < stop, let nul = bytes[offset..<stop].firstIndex(of: 0) else {
            throw Diagnostic.codeSign(at: base &+ offset, "\(what) has no terminating NUL byte")
        }
        guard let text = String(validating: bytes[offset..<nul], as: UTF8.self) else {
            throw Diagnostic.codeSign(at: base &+ offset, "\(what) is not valid UTF-8")
        }
        return text
    }

    /// A checked conversion of a value read from the file to `Int`.
    static func int<T: BinaryInteger>(_ value: T, at offset: Int, what: String) throws -> Int {
        guard let result = Int(exactly: value) else {
            throw Diagnostic.codeSign(at: offset, "\(what) \(value) is too large")
        }
        return result
    }
}

/// Appends big-endian integers and bytes, for the blob writers.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32be(_ value: UInt32) {
        bytes.append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)])
    }

    mutating func u64be(_ value: UInt64) {
        u32be(UInt32(value >> 32))
        u32be(UInt32(value & 0xffff_ffff))
    }

    mutating func append<S: Sequence>(_ other: S) where S.Element == UInt8 { bytes.append(contentsOf: other) }

    mutating func cString(_ text: String) {
        bytes.append(contentsOf: Array(text.utf8))
        bytes.append(0)
    }

    /// Zero bytes up to the next multiple of `alignment`.
    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    /// Overwrites 4 bytes at `offset` with `value`, big-endian.
    mutating func set32be(_ value: UInt32, at offset: Int) {
        bytes[offset] = UInt8(value >> 24)
        bytes[offset + 1] = UInt8(value >> 16 & 0xff)
        bytes[offset + 2] = UInt8(value >> 8 & 0xff)
        bytes[offset + 3] = UInt8(value & 0xff)
    }
}
