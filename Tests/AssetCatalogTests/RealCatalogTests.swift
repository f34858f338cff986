import AssetCatalog
import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// The real catalogs: acextract's Xcode 7.3 catalog (compared with the PNGs it was compiled
/// from) and the Xcode 12.5 AppIcon catalog inside a fixture ipa.
@Suite(Fixtures.enabled) struct RealCatalogTests {
    static let carPath = Fixtures.url("car", "acextract_assets_iphone.car").path
    static let sources = Fixtures.url("car", "acextract_Images.xcassets")

    /// How each rendition turned out: `decoded`, or the reason it was not.
    static func outcomes(_ catalog: AssetCatalog, _ decoder: RenditionDecoder) -> [String: Int] {
        var counts: [String: Int] = [:]
        for rendition in catalog.renditions {
            do {
                _ = try decoder.image(for: rendition)
                counts["decoded", default: 0] += 1
            } catch let error as Diagnostic where error.is(AssetCatalogProblem.self) {
                guard error.code == .assetCatalog(.notDecodable), error.message.hasPrefix("not decodable here (") else {
                    Issue.record("\(error)")
                    continue
                }
                counts[String(error.message.dropFirst("not decodable here (".count).dropLast()), default: 0] += 1
            } catch {
                Issue.record("\(error)")
            }
        }
        return counts
    }

    @Test func listsEveryRendition() throws {
        let catalog = try AssetCatalog(path: Self.carPath)
        #expect(catalog.header.coreUIVersion == 374)
        #expect(catalog.header.versionString == "CoreThemeDefinition-247:IBCocoaTouchImageCatalogTool-7.3")
        #expect(catalog.renditions.count == 192)
        #expect(catalog.renditions.count == catalog.header.renditionCount)
        var encodings: [String: Int] = [:]
        var formats: [String: Int] = [:]
        for rendition in catalog.renditions {
            encodings[rendition.encoding, default: 0] += 1
            formats[rendition.pixelFormat, default: 0] += 1
            if rendition.key[.identifier] != 0 { #expect(rendition.facetName != nil, "\(rendition.label)") }
        }
        #expect(encodings == ["internal reference": 118, "lzfse": 67, "raw data": 7])
        #expect(formats == ["ARGB": 185, "PDF ": 7])
        #expect(catalog.renditions.filter(\.isPackedAtlas).count == 43)
        #expect(Set(catalog.renditions.compactMap(\.facetName)).count == 29)
    }

    @Test func withoutAnLZFSEDecoderEveryBitmapSaysSo() throws {
        let catalog = try AssetCatalog(path: Self.carPath)
        let counts = Self.outcomes(catalog, RenditionDecoder(catalog: catalog))
        // Pinned: the 43 atlases and 24 images are LZFSE, the 118 references point into LZFSE atlases, 7 are PDFs.
        #expect(counts == ["lzfse": 185, "pdf": 7])
    }

    @Test func withTheBuiltInDecodersOnlyThePDFsAreLeft() throws {
        let catalog = try AssetCatalog(path: Self.carPath)
        let counts = Self.outcomes(catalog, RenditionDecoder.withBuiltInDecompressors(catalog))
        #expect(counts == ["decoded": 185, "pdf": 7])
    }

    /// The source PNG of a rendition: `<facet>.imageset/<name>` somewhere in the source catalog.
    static func sourceImage(_ rendition: Rendition) throws -> RGBAImage? {
        guard let facet = rendition.facetName, rendition.name.hasSuffix(".png") else { return nil }
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.lastPathComponent == facet + ".imageset" {
                let data = try Data(contentsOf: url.appendingPathComponent(rendition.name))
                return try RGBAImage(pngData: data)
            }
        }
        return nil
    }

    /// The largest difference of any channel, with colour ignored where both are fully transparent.
    static func difference(_ a: RGBAImage, _ b: RGBAImage) -> Int {
        var worst = 0
        for pixel in stride(from: 0, to: a.pixels.count, by: 4) {
            let channels = a.pixels[pixel + 3] == 0 && b.pixels[pixel + 3] == 0 ? 3..<4 : 0..<4
            for channel in channels {
                worst = max(worst, abs(Int(a.pixels[pixel + channel]) - Int(b.pixels[pixel + channel])))
            }
        }
        return worst
    }

    @Test func decodedRenditionsMatchTheirSourcePNGs() throws {
        let catalog = try AssetCatalog(path: Self.carPath)
        let decoder = RenditionDecoder.withBuiltInDecompressors(catalog)
        var tally: [String: Int] = [:]
        for rendition in catalog.renditions where !rendition.isPackedAtlas {
            let image: RGBAImage
            do {
                image = try decoder.image(for: rendition)
            } catch let error as Diagnostic where error.is(AssetCatalogProblem.self) {
                tally["not decodable: \(error.message)", default: 0] += 1
                continue
            }
            #expect(image.width == rendition.width && image.height == rendition.height, "\(rendition.label)")
            guard let source = try Self.sourceImage(rendition) else {
                tally["no source PNG (drawn from a PDF)", default: 0] += 1
                continue
            }
            guard source.width == image.width, source.height == image.height else {
                tally["cropped or sliced by actool", default: 0] += 1
                continue
            }
            let difference = Self.difference(image, source)
            #expect(difference <= 2, "\(rendition.label) differs from its source by \(difference)")
            tally["matches its source", default: 0] += 1
        }
        // Pinned: of the 149 renditions that are not atlases, 119 equal their source PNG within 2 per channel;
        // 9 were trimmed or sliced by actool, 14 are bitmaps drawn from a PDF, and 7 are the PDFs themselves.
        #expect(
            tally == [
                "matches its source": 119, "cropped or sliced by actool": 9, "no source PNG (drawn from a PDF)": 14,
                "not decodable: not decodable here (pdf)": 7
            ])
    }

    /// Every LZFSE chunk of both real catalogs, decoded here and by Apple's decoder, byte for byte.
    @Test(.enabled(if: LZFSEOracle.isAvailable, "python3's lzfse module is missing (pip install lzfse)"))
    func builtInDecoderAgreesWithApplesOnEveryChunk() throws {
        let archive = try ZipArchiveReader(path: Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path)
        let catalogs = [
            try AssetCatalog(path: Self.carPath),
            try AssetCatalog(bytes: [UInt8](try archive.data(named: "Payload/Test.app/Assets.car")), file: "Test.app/Assets.car")
        ]
        var compared = 0
        for catalog in catalogs {
            let oracle = try #require(LZFSEOracle.decompressor(for: catalog), "python3's lzfse could not decode \(catalog.file)")
            for rendition in catalog.renditions where rendition.encoding == "lzfse" {
                for chunk in catalog.compressedPayload(of: rendition) {
                    let expected = try oracle(.lzfse, chunk, 0)
                    #expect(try RenditionDecoder.builtInDecompressor(.lzfse, chunk, expected.count) == expected, "\(rendition.label)")
                    compared += 1
                }
            }
        }
        #expect(compared > 60)
    }

    @Test func xcode12AppIconCatalog() throws {
        let archive = try ZipArchiveReader(path: Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path)
        let bytes = [UInt8](try archive.data(named: "Payload/Test.app/Assets.car"))
        let catalog = try AssetCatalog(bytes: bytes, file: "Test.app/Assets.car")
        #expect(catalog.header.coreUIVersion == 691)
        let listing = catalog.renditions.map { "\($0.label) \($0.pixelFormat) \($0.encoding)" }
        #expect(
            listing == [
                "'AppIcon' AppIcon 0x0 @1x iphone none multisize image set",
                "'AppIcon' AppIcon 0x0 @1x iphone none multisize image set",
                "'AppIcon' icon-1.png 180x180 @2x iphone ARGB lzfse",
                "'AppIcon' icon-1.png 180x180 @3x iphone ARGB lzfse"
            ])
        let icon = catalog.renditions[3]
        #expect(catalog.compressedPayload(of: icon).count == 3)
        guard case .pixels(let payload) = icon.payload else {
            Issue.record("the AppIcon rendition holds no pixels")
            return
        }
        #expect(payload.chunks.map(\.rows) == [60, 60, 60])
        #expect(icon.header.bytesPerRow == 736)  // 180 × 4 = 720, rows padded to 736
        let error = try requireDiagnostic(AssetCatalogProblem.self) { try RenditionDecoder(catalog: catalog).image(for: icon) }
        #expect(error.description == "Test.app/Assets.car: rendition 'AppIcon' icon-1.png 180x180 @3x iphone: not decodable here (lzfse)")
        let image = try RenditionDecoder.withBuiltInDecompressors(catalog).image(for: icon)
        #expect(image.width == 180 && image.height == 180)
        #expect(image.pixels.contains { $0 != 0 })
        if let oracle = LZFSEOracle.decompressor(for: catalog) {
            #expect(try RenditionDecoder(catalog: catalog, decompress: oracle).image(for: icon) == image)
        }
    }
}
