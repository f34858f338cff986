import Compression
import Foundation
import SystemSupport

/// Decompresses what this module does not decode itself (LZFSE, LZVN): given the compression,
/// the compressed bytes and the exact size the result must have, returns the decompressed bytes
/// or throws. A separate decoder target plugs in here.
public typealias RenditionDecompressor =
    @Sendable (
        _ kind: RenditionCompression, _ bytes: [UInt8], _ expectedSize: Int
    ) throws -> [UInt8]

/// Turns renditions of an ``AssetCatalog`` into 8-bit RGBA images with straight alpha
/// (``RGBAImage``), ready to be written as standard PNGs.
///
/// Decodes `ARGB` (stored BGRA, premultiplied) and `GA8 ` (grey and alpha, premultiplied) pixels,
/// raw or zlib-compressed, whole or in `KCBC` chunks, and internal references into packed atlases.
/// LZFSE and LZVN need ``decompress`` (``withBuiltInDecompressors(_:)`` plugs in this project's
/// decoders); anything else throws an ``Diagnostic`` of kind
/// `.assetCatalog(.notDecodable)` naming the rendition and its encoding.
public struct RenditionDecoder: Sendable {
    /// The catalog whose renditions (and atlases) are decoded.
    public var catalog: AssetCatalog
    /// Used for LZFSE and LZVN; when nil those renditions are "not decodable here".
    public var decompress: RenditionDecompressor?

    /// At most this many pixels per rendition or atlas (4096 × 4096).
    public static let maximumPixels = 1 << 24

    /// A decoder for `catalog`, with `decompress` for LZFSE and LZVN when one is at hand.
    public init(catalog: AssetCatalog, decompress: RenditionDecompressor? = nil) {
        self.catalog = catalog
        self.decompress = decompress
    }

    /// The rendition's pixels as an RGBA image with straight alpha.
    public func image(for rendition: Rendition) throws -> RGBAImage {
        if let reference = rendition.header.internalReference {
            return try crop(reference, for: rendition)
        }
        return try pixels(of: rendition)
    }

    func notDecodable(_ rendition: Rendition, _ encoding: String) -> Diagnostic {
        Diagnostic.assetCatalog(
            "not decodable here (\(encoding))", kind: .notDecodable, file: catalog.file,
            location: "rendition \(rendition.label)")
    }

    func malformed(_ rendition: Rendition, _ problem: String) -> Diagnostic {
        Diagnostic.assetCatalog(problem, file: catalog.file, location: "rendition \(rendition.label)")
    }

    /// The rectangle of the referenced atlas; the reference's y counts from the atlas's bottom.
    func crop(_ reference: InternalReference, for rendition: Rendition) throws -> RGBAImage {
        guard let atlas = catalog.rendition(for: reference.target) else {
            throw malformed(rendition, "internal reference to a rendition that is not in the catalog (\(reference.target))")
        }
        guard atlas.header.internalReference == nil else {
            throw malformed(rendition, "internal reference to another internal reference (\(reference.target))")
        }
        let source = try pixels(of: atlas)
        let (x, y, width, height) = (reference.x, reference.y, reference.width, reference.height)
        guard width > 0, height > 0, x <= source.width - width, y <= source.height - height else {
            throw malformed(
                rendition, "internal reference frame \(x),\(y) \(width)x\(height) lies outside the \(source.width)x\(source.height) atlas")
        }
        let top = source.height - y - height
        var output = [UInt8](repeating: 0, count: width * height * 4)
        for row in 0..<height {
            let from = ((top + row) * source.width + x) * 4
            output.replaceSubrange((row * width * 4)..<((row + 1) * width * 4), with: source.pixels[from..<(from + width * 4)])
        }
        return RGBAImage(width: width, height: height, pixels: output)
    }

    /// Decodes a rendition that holds its own pixels.
    func pixels(of rendition: Rendition) throws -> RGBAImage {
        guard case .pixels(let payload) = rendition.payload else {
            switch rendition.payload {
            case .rawData: throw notDecodable(rendition, rendition.pixelFormat.trimmingCharacters(in: .whitespaces).lowercased())
            default: throw notDecodable(rendition, rendition.encoding)
            }
        }
        let channels: Int
        switch rendition.pixelFormat {
        case "ARGB": channels = 4
        case "GA8 ": channels = 2
        default: throw notDecodable(rendition, "\(rendition.pixelFormat.trimmingCharacters(in: .whitespaces)), \(payload.compression)")
        }
        switch payload.compression {
        case .uncompressed, .zip: break
        case .lzfse, .lzvn: if decompress == nil { throw notDecodable(rendition, payload.compression.description) }
        default: throw notDecodable(rendition, payload.compression.description)
        }
        let (width, height) = (rendition.width, rendition.height)
        guard width > 0, height > 0, width <= Self.maximumPixels / height else {
            throw malformed(rendition, "size \(width)x\(height) is empty or over \(Self.maximumPixels) pixels")
        }
        let bytesPerRow = rendition.header.bytesPerRow ?? width * channels
        guard bytesPerRow >= width * channels, bytesPerRow <= width * channels + 256, bytesPerRow <= Self.maximumPixels * 4 / height else {
            throw malformed(rendition, "bytes per row \(bytesPerRow) does not suit width \(width) (\(channels) bytes a pixel)")
        }
        var stored: [UInt8] = []
        stored.reserveCapacity(bytesPerRow * height)
        var rowsLeft = height
        for (index, chunk) in payload.chunks.enumerated() {
            let rows = chunk.rows == 0 && payload.chunks.count == 1 ? height : chunk.rows
            guard rows > 0, rows <= rowsLeft else {
                throw malformed(rendition, "chunk \(index) holds \(rows) rows, but \(rowsLeft) of \(height) are left")
            }
            let bytes = Array(catalog.store.bytes[chunk.bytes])
            stored += try expand(bytes, payload.compression, size: rows * bytesPerRow, rendition: rendition, chunk: index)
            rowsLeft -= rows
        }
        guard rowsLeft == 0 else { throw malformed(rendition, "the chunks hold \(height - rowsLeft) of \(height) rows") }
        return RGBAImage(width: width, height: height, pixels: Self.straightRGBA(stored, width, height, bytesPerRow, channels))
    }

    /// One chunk's bytes decompressed to exactly `size` bytes.
    func expand(_ bytes: [UInt8], _ compression: RenditionCompression, size: Int, rendition: Rendition, chunk: Int) throws -> [UInt8] {
        switch compression {
        case .uncompressed:
            guard bytes.count >= size else {
                throw malformed(rendition, "chunk \(chunk) has \(bytes.count) bytes, \(size) needed")
            }
            return Array(bytes.prefix(size))
        case .zip:
            // Deflate cannot expand more than 1032 to 1, so a larger claim is refused before allocating.
            guard size <= bytes.count * 1032 + 64, let output = ZlibData.inflate(bytes, size: size, orRawDeflate: true) else {
                throw malformed(rendition, "chunk \(chunk): zlib data does not inflate to \(size) bytes")
            }
            return output
        default:
            guard let decompress else { throw notDecodable(rendition, compression.description) }
            let output: [UInt8]
            do {
                output = try decompress(compression, bytes, size)
            } catch let error as Diagnostic where error.is(AssetCatalogProblem.self) {
                throw error.code == .assetCatalog(.malformed)
                    ? malformed(rendition, "chunk \(chunk): \(error.message)") : notDecodable(rendition, compression.description)
            } catch let error as Diagnostic {
                let place = error.location.map { " (\($0))" } ?? ""
                throw malformed(rendition, "chunk \(chunk): \(compression) data\(place): \(error.message)")
            }
            guard output.count == size else {
                throw malformed(rendition, "chunk \(chunk): \(compression) data gave \(output.count) bytes, \(size) expected")
            }
            return output
        }
    }

    /// Premultiplied BGRA or grey+alpha rows turned into straight RGBA.
    static func straightRGBA(_ stored: [UInt8], _ width: Int, _ height: Int, _ bytesPerRow: Int, _ channels: Int) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        func straight(_ value: UInt8, _ alpha: UInt8) -> UInt8 {
            alpha == 0 ? 0 : UInt8(min(255, (Int(value) * 255 + Int(alpha) / 2) / Int(alpha)))
        }
        for row in 0..<height {
            for column in 0..<width {
                let from = row * bytesPerRow + column * channels
                let to = (row * width + column) * 4
                if channels == 4 {
                    let alpha = stored[from + 3]
                    rgba[to] = straight(stored[from + 2], alpha)
                    rgba[to + 1] = straight(stored[from + 1], alpha)
                    rgba[to + 2] = straight(stored[from], alpha)
                    rgba[to + 3] = alpha
                } else {
                    let alpha = stored[from + 1]
                    let grey = straight(stored[from], alpha)
                    rgba[to] = grey
                    rgba[to + 1] = grey
                    rgba[to + 2] = grey
                    rgba[to + 3] = alpha
                }
            }
        }
        return rgba
    }
}
