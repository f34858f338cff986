import AssetCatalog
import Compression
import Foundation
import SystemSupport

/// The PNG codec: an image decoded from a PNG — standard or Apple's crushed CgBI form — and
/// written back as a standard PNG.
///
/// CgBI ("iPhone-optimised") PNGs, which Xcode writes into app bundles, differ from the
/// standard in four ways that are undone here: a `CgBI` chunk before `IHDR`, raw deflate
/// data with no zlib header, pixels in BGRA order, and colours premultiplied by alpha.
extension RGBAImage {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let maxPixels = 16_384 * 16_384

    /// The width and height from the header, without decoding (nil when not a PNG).
    public static func pngDimensions(of data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(64))
        guard bytes.starts(with: signature) else { return nil }
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            if type == "IHDR", offset + 16 <= bytes.count {
                func be32(_ at: Int) -> Int {
                    Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                }
                return (be32(offset + 8), be32(offset + 12))
            }
            offset += 12 + length
        }
        return nil
    }

    /// True when `data` is a CgBI (crushed) PNG.
    public static func isCgBI(_ data: Data) -> Bool {
        data.count >= 16 && data.starts(with: signature) && data[data.startIndex + 12..<data.startIndex + 16].elementsEqual("CgBI".utf8)
    }

    /// Decodes a PNG (8-bit greyscale, grey+alpha, RGB, RGBA or palette, not interlaced) or a CgBI PNG.
    public init(pngData data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.starts(with: RGBAImage.signature) else { throw Diagnostic.image("not a PNG (bad signature)") }
        var offset = 8
        var isCgBI = false
        var header: (width: Int, height: Int, depth: UInt8, color: UInt8, interlace: UInt8)?
        var compressed: [UInt8] = []
        var palette: [UInt8] = []
        var transparency: [UInt8] = []
        func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        chunks: while true {
            guard offset + 12 <= bytes.count else { throw Diagnostic.image("truncated (no IEND chunk)") }
            let length = be32(offset)
            guard length >= 0, length <= bytes.count - offset - 12 else {
                throw Diagnostic.image("chunk at byte \(offset) claims \(length) bytes, more than remain")
            }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let body = bytes[(offset + 8)..<(offset + 8 + length)]
            let storedCRC = UInt32(be32(offset + 8 + length))
            let actualCRC = bytes[(offset + 4)..<(offset + 8 + length)].withUnsafeBytes { Deflater.crc32(0, $0) }
            guard storedCRC == actualCRC else { throw Diagnostic.image("\(type) chunk has a bad CRC") }
            switch type {
            case "CgBI": isCgBI = true
            case "IHDR":
                guard length == 13 else { throw Diagnostic.image("IHDR has \(length) bytes, not 13") }
                let start = body.startIndex
                header = (be32(start), be32(start + 4), body[start + 8], body[start + 9], body[start + 12])
            case "PLTE": palette = Array(body)
            case "tRNS": transparency = Array(body)
            case "IDAT": compressed += body
            case "IEND": break chunks
            default: break
            }
            offset += 12 + length
        }
        guard let header else { throw Diagnostic.image("no IHDR chunk") }
        guard header.width > 0, header.height > 0, header.width * header.height <= RGBAImage.maxPixels else {
            throw Diagnostic.image("impossible size \(header.width)x\(header.height)")
        }
        guard header.depth == 8 else { throw Diagnostic.image("bit depth \(header.depth) is not supported (only 8)") }
        guard header.interlace == 0 else { throw Diagnostic.image("interlaced PNGs are not supported") }
        let channels: Int
        switch header.color {
        case 0: channels = 1
        case 2: channels = 3
        case 3: channels = 1
        case 4: channels = 2
        case 6: channels = 4
        default: throw Diagnostic.image("colour type \(header.color) is not valid")
        }
        let stride = header.width * channels
        let expected = header.height * (stride + 1)
        let raw: [UInt8]
        if isCgBI {
            guard let inflated = compressed.withUnsafeBytes({ Deflater.inflate($0, size: expected) }) else {
                throw Diagnostic.image("CgBI image data does not inflate to \(expected) bytes")
            }
            raw = inflated
        } else {
            guard let inflated = ZlibData.inflate(compressed, size: expected) else {
                throw Diagnostic.image("image data does not inflate to \(expected) bytes")
            }
            raw = inflated
        }
        let rows = try RGBAImage.unfilter(raw, width: header.width, height: header.height, channels: channels)
        var rgba = [UInt8](repeating: 255, count: header.width * header.height * 4)
        for pixel in 0..<(header.width * header.height) {
            let source = pixel * channels, target = pixel * 4
            switch header.color {
            case 0:
                rgba[target] = rows[source]; rgba[target + 1] = rows[source]; rgba[target + 2] = rows[source]
            case 4:
                rgba[target] = rows[source]; rgba[target + 1] = rows[source]; rgba[target + 2] = rows[source]
                rgba[target + 3] = rows[source + 1]
            case 3:
                let index = Int(rows[source])
                guard index * 3 + 2 < palette.count else { throw Diagnostic.image("palette index \(index) out of range") }
                rgba[target] = palette[index * 3]; rgba[target + 1] = palette[index * 3 + 1]; rgba[target + 2] = palette[index * 3 + 2]
                if index < transparency.count { rgba[target + 3] = transparency[index] }
            case 2:
                rgba[target] = rows[source]; rgba[target + 1] = rows[source + 1]; rgba[target + 2] = rows[source + 2]
            default:
                if isCgBI {
                    // BGRA, premultiplied: swap to RGBA and divide the colours by alpha.
                    let alpha = Int(rows[source + 3])
                    for (channel, from) in [(0, 2), (1, 1), (2, 0)] {
                        let value = Int(rows[source + from])
                        rgba[target + channel] = alpha == 0 ? 0 : UInt8(min(255, (value * 255 + alpha / 2) / alpha))
                    }
                    rgba[target + 3] = UInt8(alpha)
                } else {
                    rgba[target] = rows[source]; rgba[target + 1] = rows[source + 1]
                    rgba[target + 2] = rows[source + 2]; rgba[target + 3] = rows[source + 3]
                }
            }
        }
        self.init(width: header.width, height: header.height, pixels: rgba)
    }

    /// Undoes the per-row filters (None, Sub, Up, Average, Paeth).
    static func unfilter(_ raw: [UInt8], width: Int, height: Int, channels: Int) throws -> [UInt8] {
        let stride = width * channels
        var output = [UInt8](repeating: 0, count: stride * height)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let target = row * stride
            for column in 0..<stride {
                let x = raw[source + column]
                let a = column >= channels ? Int(output[target + column - channels]) : 0
                let b = row > 0 ? Int(output[target - stride + column]) : 0
                let c = row > 0 && column >= channels ? Int(output[target - stride + column - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw Diagnostic.image("row \(row) has unknown filter type \(filter)")
                }
                output[target + column] = UInt8(truncatingIfNeeded: Int(x) + predictor)
            }
        }
        return output
    }

    /// A standard PNG (RGBA, 8-bit, zlib-compressed, Paeth-filtered rows) with correct CRCs.
    public func pngData() -> Data {
        var out = RGBAImage.signature
        func chunk(_ type: String, _ body: [UInt8]) {
            let length = UInt32(body.count)
            out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            let typed = Array(type.utf8) + body
            out += typed
            let crc = typed.withUnsafeBytes { Deflater.crc32(0, $0) }
            out += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        func be32(_ value: Int) -> [UInt8] {
            [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
        let stride = width * 4
        var filtered = [UInt8]()
        filtered.reserveCapacity((stride + 1) * height)
        for row in 0..<height {
            filtered.append(4)  // Paeth
            for column in 0..<stride {
                let index = row * stride + column
                let a = column >= 4 ? Int(pixels[index - 4]) : 0
                let b = row > 0 ? Int(pixels[index - stride]) : 0
                let c = row > 0 && column >= 4 ? Int(pixels[index - stride - 4]) : 0
                let p = a + b - c
                let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                filtered.append(UInt8(truncatingIfNeeded: Int(pixels[index]) - predictor))
            }
        }
        chunk("IDAT", ZlibData.compress(filtered, level: 9))
        chunk("IEND", [])
        return Data(out)
    }
}
