import SystemSupport

/// An indexed container of blobs (the embedded signature, magic `0xfade0cc0`, and the
/// requirement set use this layout): magic, length, count, then `(type, offset)` pairs, then the blobs.
public struct SuperBlob: Sendable, Equatable {
    /// One indexed blob: its type (a ``SignatureSlot`` or requirement type) and its bytes, header included.
    public struct Entry: Sendable, Equatable {
        public var type: UInt32
        public var bytes: [UInt8]

        public init(type: UInt32, bytes: [UInt8]) {
            self.type = type
            self.bytes = bytes
        }

        /// The blob's own magic.
        public var magic: UInt32 { bytes.count >= 4 ? bytes[0..<4].reduce(0) { $0 << 8 | UInt32($1) } : 0 }
    }

    /// More entries than any signature holds; bounds the work a hostile count causes.
    static let maxEntries = 1_024

    public var magic: UInt32
    public var entries: [Entry]

    public init(magic: UInt32, entries: [Entry]) {
        self.magic = magic
        self.entries = entries
    }

    /// Reads the super blob at the start of `reader`; each entry's length comes from the blob's own header.
    init(reading reader: ByteReader, expecting expected: UInt32, what: String) throws {
        let header = try BlobHeader(reader, at: 0, expecting: expected, what: what)
        let count = Int(try reader.u32be(8, what: "\(what) count"))
        guard count <= SuperBlob.maxEntries, 12 + count * 8 <= header.length else {
            throw Diagnostic.codeSign(at: reader.base + 8, "\(what) claims \(count) entries, more than its \(header.length) bytes hold")
        }
        let body = try reader.sub(0, header.length, what: what)
        var entries: [Entry] = []
        for index in 0..<count {
            let type = try body.u32be(12 + index * 8)
            let offset = Int(try body.u32be(16 + index * 8))
            guard offset >= 12 + count * 8 else {
                throw Diagnostic.codeSign(at: body.base + 16 + index * 8, "\(what) entry \(index) has offset \(offset), inside the index")
            }
            let blob = try BlobHeader(body, at: offset, what: "\(what) entry \(index) (type 0x\(String(type, radix: 16)))")
            entries.append(Entry(type: type, bytes: try body.slice(offset, blob.length, what: "blob")))
        }
        magic = header.magic
        self.entries = entries
    }

    /// The first entry of `type`.
    public func entry(_ type: UInt32) -> Entry? { entries.first { $0.type == type } }

    /// The bytes: header and index, then every blob in order with no gaps (as Apple's tools write it).
    public func bytes() -> [UInt8] {
        var out = ByteWriter()
        let total = 12 + entries.count * 8 + entries.reduce(0) { $0 + $1.bytes.count }
        out.u32be(magic)
        out.u32be(UInt32(truncatingIfNeeded: total))
        out.u32be(UInt32(entries.count))
        var offset = 12 + entries.count * 8
        for entry in entries {
            out.u32be(entry.type)
            out.u32be(UInt32(truncatingIfNeeded: offset))
            offset += entry.bytes.count
        }
        for entry in entries { out.append(entry.bytes) }
        return out.bytes
    }
}
