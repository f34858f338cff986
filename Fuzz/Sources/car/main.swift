import AssetCatalog
import Foundation
import FuzzDriver
import SystemSupport

// Opens the input as a compiled asset catalog and decodes every rendition three times: with no
// decompressor (LZFSE not decodable), with the built-in LZFSE and LZVN decoders, and with a
// stand-in that returns zeros of the expected size, so the pixel paths run even where the fuzzer's
// LZFSE data is garbage. Every failure must be a one-line asset catalog diagnostic.
runFuzzer { data in
    func check(_ error: any Error) {
        guard let error = error as? Diagnostic, error.code.domain == AssetCatalogProblem.domain else {
            preconditionFailure("not an asset catalog diagnostic: \(error)")
        }
        precondition(!error.description.contains("\n"), "error spans lines: \(error.description)")
    }
    let catalog: AssetCatalog
    do {
        catalog = try AssetCatalog(bytes: [UInt8](data), file: "fuzz.car")
    } catch {
        check(error)
        return
    }
    // Pixels are decoded up to 256 × 256 a rendition (and atlas), so one input stays well inside
    // libFuzzer's time limit under AddressSanitizer; the size limit itself has unit tests.
    func isSmall(_ rendition: Rendition?) -> Bool {
        guard let rendition else { return true }
        return rendition.width <= 256 && rendition.height <= 256
    }
    let zeros = RenditionDecoder(catalog: catalog) { _, _, size in [UInt8](repeating: 0, count: size) }
    for decoder in [RenditionDecoder(catalog: catalog), RenditionDecoder.withBuiltInDecompressors(catalog), zeros] {
        for rendition in catalog.renditions.prefix(64)
        where isSmall(rendition) && isSmall(rendition.header.internalReference.flatMap { catalog.rendition(for: $0.target) }) {
            do { _ = try decoder.image(for: rendition) } catch { check(error) }
        }
    }
}
