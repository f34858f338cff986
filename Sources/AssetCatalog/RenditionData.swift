/// How a rendition's pixels are compressed (the `CELM` compression type).
public struct RenditionCompression: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// CoreUI's number for the compression.
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    // CoreUI's compression types, by number.
    public static let uncompressed = Self(rawValue: 0)
    public static let rle = Self(rawValue: 1)
    /// zlib (deflate with a zlib header).
    public static let zip = Self(rawValue: 2)
    public static let lzvn = Self(rawValue: 3)
    public static let lzfse = Self(rawValue: 4)
    public static let jpegLZFSE = Self(rawValue: 5)
    public static let blurred = Self(rawValue: 6)
    public static let astc = Self(rawValue: 7)
    public static let paletteImage = Self(rawValue: 8)
    public static let hevc = Self(rawValue: 9)
    public static let deepmapLZFSE = Self(rawValue: 10)
    public static let deepmap2 = Self(rawValue: 11)

    /// The short name used in messages: `raw`, `zlib`, `lzfse`, `deepmap2`, …
    public var description: String {
        let names = [
            "raw", "rle", "zlib", "lzvn", "lzfse", "jpeg-lzfse", "blurred", "astc", "palette-img", "hevc", "deepmap-lzfse", "deepmap2"
        ]
        return names.indices.contains(rawValue) ? names[rawValue] : "compression \(rawValue)"
    }
}

/// What follows a rendition's header and TLVs.
public enum RenditionPayload: Sendable, Equatable {
    /// Pixels (`CELM`), compressed as a whole or in `KCBC` chunks of rows.
    case pixels(PixelPayload)
    /// Raw bytes (`RAWD`): a PDF, a data asset, …
    case rawData(Range<Int>)
    /// A multisize image set (`SISM`): the sizes an icon comes in.
    case multisizeImageSet
    /// Nothing: the pixels are elsewhere (an internal reference) or there are none.
    case none
    /// A payload this reader does not know, by its tag.
    case other(String)
}

/// Compressed pixels: one part per chunk, each for some rows.
public struct PixelPayload: Sendable, Equatable {
    /// One `KCBC` chunk (or the whole data when it is not chunked).
    public struct Chunk: Sendable, Equatable {
        /// How many rows this chunk holds (0 when the data is not chunked: then all rows).
        public var rows: Int
        /// Where the chunk's compressed bytes are in the catalog file.
        public var bytes: Range<Int>
    }

    /// How every chunk is compressed.
    public var compression: RenditionCompression
    /// The chunks, top rows first.
    public var chunks: [Chunk]

    /// The compressed size in all.
    public var compressedSize: Int { chunks.reduce(0) { $0 + $1.bytes.count } }

    /// At most this many chunks (each is at least 20 bytes, so the data bounds it too).
    static let maximumChunks = 1 << 16

    static func read(_ view: ByteView) throws -> RenditionPayload {
        if view.count == 0 { return .none }
        if view.hasTag(0, "MLEC") {
            let compression = RenditionCompression(rawValue: try view.u32le(8, "compression"))
            let lengthOrChunks = try view.u32le(12, "payload length")
            if view.hasTag(16, "KCBC") {
                var chunks: [Chunk] = []
                var offset = 16
                while view.hasTag(offset, "KCBC") {
                    guard chunks.count < maximumChunks else { throw view.failure("more than \(maximumChunks) KCBC chunks") }
                    let rows = try view.u32le(offset + 12, "KCBC chunk \(chunks.count) rows")
                    let length = try view.u32le(offset + 16, "KCBC chunk \(chunks.count) length")
                    chunks.append(Chunk(rows: rows, bytes: try view.slice(offset + 20, length, "KCBC chunk \(chunks.count) data")))
                    offset += 20 + length
                }
                return .pixels(PixelPayload(compression: compression, chunks: chunks))
            }
            let bytes = try view.slice(16, lengthOrChunks, "CELM data")
            return .pixels(PixelPayload(compression: compression, chunks: [Chunk(rows: 0, bytes: bytes)]))
        }
        if view.hasTag(0, "DWAR") {
            let length = try view.u32le(8, "RAWD length")
            return .rawData(try view.slice(12, length, "RAWD data"))
        }
        if view.hasTag(0, "SISM") { return .multisizeImageSet }
        return .other(try view.fourCC(0, "payload tag"))
    }
}
