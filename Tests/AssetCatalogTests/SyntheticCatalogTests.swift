import AssetCatalog
import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// zlib data holding `bytes` in one stored deflate block (enough to drive the zlib path).
func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
    var a = 1
    var b = 0
    for byte in bytes {
        a = (a + Int(byte)) % 65521
        b = (b + a) % 65521
    }
    let length = bytes.count
    return [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
        + bytes + TestCatalogWriter.be32(b << 16 | a)
}

/// A catalog of every kind of rendition the decoder meets, with the pixels each must decode to.
enum SyntheticCatalog {
    /// Straight RGBA pixels and their premultiplied BGRA form.
    static let straight: [UInt8] = [255, 0, 0, 255, 0, 128, 255, 128, 0, 0, 0, 0, 255, 255, 255, 255]
    static let premultipliedBGRA: [UInt8] = [0, 0, 255, 255, 128, 64, 0, 128, 0, 0, 0, 0, 255, 255, 255, 255]

    /// An atlas of 4x4 pixels whose pixel (column c, row r from the top) is BGRA (c*60, r*60, 7, 255).
    static let atlasBGRA: [UInt8] = (0..<4).flatMap { row in (0..<4).flatMap { column in [UInt8(column * 60), UInt8(row * 60), 7, 255] } }

    static var writer: TestCatalogWriter {
        var writer = TestCatalogWriter()
        writer.facets = [("red", 1), ("grey", 2), ("member", 3), ("squeezed", 4), ("deep", 5), ("vector", 6)]
        typealias R = TestCatalogWriter.Rendition
        // 2x2 raw, rows padded to 12 bytes.
        let padded = Array(premultipliedBGRA[0..<8]) + [9, 9, 9, 9] + Array(premultipliedBGRA[8..<16]) + [9, 9, 9, 9]
        writer.renditions.append(
            R(scale: 1, identifier: 1, name: "red.png", width: 2, height: 2, bytesPerRow: 12, data: TestCatalogWriter.celm(0, padded)))
        // 2x4 zlib in two KCBC chunks of two rows.
        let tall = premultipliedBGRA + premultipliedBGRA
        writer.renditions.append(
            R(
                scale: 2, identifier: 1, name: "red@2x.png", width: 2, height: 4,
                data: TestCatalogWriter.celm(2, [], chunks: [(2, zlibStored(Array(tall[0..<16]))), (2, zlibStored(Array(tall[16...])))])))
        // Grey and alpha, premultiplied.
        writer.renditions.append(
            R(identifier: 2, name: "grey.png", width: 2, height: 1, pixelFormat: "GA8 ", data: TestCatalogWriter.celm(0, [64, 128, 0, 0])))
        // The atlas and a reference into its bottom row.
        writer.renditions.append(
            R(
                identifier: 0, element: 9, part: 181, dimension1: 0, name: "ZZZZPackedAsset-1.0.0", width: 4, height: 4, layout: 1004,
                data: TestCatalogWriter.celm(2, zlibStored(atlasBGRA))))
        writer.renditions.append(R(identifier: 3, name: "member.png", width: 2, height: 1, layout: 1003, reference: (1, 0, 2, 1, 0)))
        writer.renditions.append(R(identifier: 4, name: "squeezed.png", width: 2, height: 2, data: TestCatalogWriter.celm(4, [1, 2, 3])))
        writer.renditions.append(R(identifier: 5, name: "deep.png", width: 2, height: 2, data: TestCatalogWriter.celm(11, [1, 2, 3])))
        writer.renditions.append(
            R(
                identifier: 6, name: "vector.pdf", width: 0, height: 0, pixelFormat: "PDF ", layout: 9,
                data: Array("DWAR".utf8) + TestCatalogWriter.le32(0) + TestCatalogWriter.le32(4) + Array("%PDF".utf8)))
        writer.leafSize = 3
        return writer
    }

    static var bytes: [UInt8] {
        var writer = writer
        return writer.bytes()
    }
}

@Suite struct SyntheticCatalogTests {
    let catalog: AssetCatalog

    init() throws {
        catalog = try AssetCatalog(bytes: SyntheticCatalog.bytes, file: "synthetic.car")
    }

    func rendition(_ name: String) throws -> Rendition {
        try #require(catalog.renditions.first { $0.name == name })
    }

    @Test func listsEveryRenditionAcrossLeaves() throws {
        #expect(catalog.renditions.count == 8)
        #expect(catalog.header.coreUIVersion == 374)
        #expect(catalog.keyFormat.attributes.map(\.rawValue) == TestCatalogWriter.keyFormat)
        let red = try rendition("red@2x.png")
        #expect(red.facetName == "red")
        #expect(red.scale == 2)
        #expect(red.idiom == .universal)
        #expect(red.pixelFormat == "ARGB")
        #expect(red.encoding == "zlib")
        #expect(catalog.compressedPayload(of: red).count == 2)
        #expect(try rendition("member.png").encoding == "internal reference")
        #expect(try rendition("vector.pdf").encoding == "raw data")
        #expect(try rendition("ZZZZPackedAsset-1.0.0").isPackedAtlas)
        #expect(try rendition("grey.png").label == "'grey' grey.png 2x1 @1x universal")
    }

    @Test func decodesRawZlibChunkedAndGrey() throws {
        let decoder = RenditionDecoder(catalog: catalog)
        #expect(try decoder.image(for: rendition("red.png")) == RGBAImage(width: 2, height: 2, pixels: SyntheticCatalog.straight))
        #expect(
            try decoder.image(for: rendition("red@2x.png"))
                == RGBAImage(width: 2, height: 4, pixels: SyntheticCatalog.straight + SyntheticCatalog.straight))
        #expect(try decoder.image(for: rendition("grey.png")).pixels == [128, 128, 128, 128, 0, 0, 0, 0])
    }

    @Test func internalReferenceMeasuresYFromTheBottom() throws {
        let image = try RenditionDecoder(catalog: catalog).image(for: rendition("member.png"))
        // Bottom row of the atlas (row 3 from the top), columns 1 and 2; BGRA (c*60, r*60, 7) -> RGB (7, r*60, c*60).
        #expect(image == RGBAImage(width: 2, height: 1, pixels: [7, 180, 60, 255, 7, 180, 120, 255]))
    }

    @Test func lzfseWaitsForAnInjectedDecompressor() throws {
        let squeezed = try rendition("squeezed.png")
        let error = try requireDiagnostic(AssetCatalogProblem.self) { try RenditionDecoder(catalog: catalog).image(for: squeezed) }
        #expect(error.code == .assetCatalog(.notDecodable) && error.message == "not decodable here (lzfse)")
        #expect(error.description == "synthetic.car: rendition 'squeezed' squeezed.png 2x2 @1x universal: not decodable here (lzfse)")
        let decoder = RenditionDecoder(catalog: catalog) { kind, bytes, size in
            #expect(kind == .lzfse && bytes == [1, 2, 3] && size == 16)
            return SyntheticCatalog.premultipliedBGRA
        }
        #expect(try decoder.image(for: squeezed).pixels == SyntheticCatalog.straight)
        let short = RenditionDecoder(catalog: catalog) { _, _, _ in [0, 0] }
        expectDiagnostic(AssetCatalogProblem.self) { try short.image(for: squeezed) }
    }

    @Test func otherEncodingsAreNamed() throws {
        let decoder = RenditionDecoder(catalog: catalog)
        for (name, encoding) in [("deep.png", "deepmap2"), ("vector.pdf", "pdf")] {
            let error = try requireDiagnostic(AssetCatalogProblem.self) { try decoder.image(for: rendition(name)) }
            #expect(error.code == .assetCatalog(.notDecodable) && error.message == "not decodable here (\(encoding))")
            #expect(!error.description.contains("\n"))
        }
    }
}
