import Compression
import SystemSupport

extension RenditionDecoder {
    /// A decoder for `catalog` that decompresses LZFSE and LZVN with this project's own decoders.
    public static func withBuiltInDecompressors(_ catalog: AssetCatalog) -> RenditionDecoder {
        RenditionDecoder(catalog: catalog, decompress: builtInDecompressor)
    }

    /// LZFSE chunks as whole LZFSE streams (`bvx2` … `bvx$`); LZVN chunks as a stream when they
    /// start with a block magic, else as bare LZVN. The output is capped at the size the rendition
    /// needs, so a hostile chunk cannot make it allocate more; a bad stream throws an `Diagnostic` (`.lzfse`),
    /// which the decoder reports against the rendition and chunk.
    public static let builtInDecompressor: RenditionDecompressor = { kind, bytes, expectedSize in
        let isStream = bytes.count >= 4 && bytes[0] == 0x62 && bytes[1] == 0x76 && bytes[2] == 0x78  // "bvx"
        switch kind {
        case .lzfse: return try LZFSEDecoder.decode(bytes, maxOutput: expectedSize)
        case .lzvn:
            return isStream
                ? try LZFSEDecoder.decode(bytes, maxOutput: expectedSize) : try LZVNDecoder.decode(bytes, maxOutput: expectedSize)
        default: throw Diagnostic.assetCatalog("no built-in decoder for \(kind) data", kind: .notDecodable)
        }
    }
}
