import AssetCatalog
import Foundation
import SystemSupport
import TestSupport
import Testing

/// Damaged and hostile catalogs: every one is read to the end or refused with a one-line error
/// naming the file, never a trap, a hang or an unbounded allocation.
@Suite struct HostileCatalogTests {
    /// Opens `bytes` and decodes every rendition (once without and once with a decompressor that
    /// hands back zeros of the expected size), checking that any error is a one-line catalog error.
    static func exercise(_ bytes: [UInt8], name: String, withPixels: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
        func check(_ error: any Error) {
            guard let error = error as? Diagnostic else {
                Issue.record("\(name): not an asset catalog diagnostic: \(error)", sourceLocation: sourceLocation)
                return
            }
            if error.description.contains("\n") || !error.description.hasPrefix(name + ": ") {
                Issue.record("\(name): not a one-line error naming the file: \(error.description)", sourceLocation: sourceLocation)
            }
        }
        let catalog: AssetCatalog
        do {
            catalog = try AssetCatalog(bytes: bytes, file: name)
        } catch {
            check(error)
            return
        }
        let zeros = RenditionDecoder(catalog: catalog) { _, _, size in [UInt8](repeating: 0, count: size) }
        for decoder in withPixels ? [RenditionDecoder(catalog: catalog), zeros] : [RenditionDecoder(catalog: catalog)] {
            for rendition in catalog.renditions {
                do { _ = try decoder.image(for: rendition) } catch { check(error) }
            }
        }
    }

    /// A deterministic generator, so a failure can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    @Test func everyTruncationOfTheSyntheticCatalog() {
        let bytes = SyntheticCatalog.bytes
        for length in 0..<bytes.count {
            Self.exercise(Array(bytes.prefix(length)), name: "cut.car")
        }
        FuzzSeeds.export(Data(bytes), harness: "car", name: "synthetic")
    }

    @Test func byteFlipsOfTheSyntheticCatalog() {
        let bytes = SyntheticCatalog.bytes
        var generator = Generator(state: 19)
        for position in 0..<bytes.count {
            for value: UInt8 in [0x00, 0xFF, 0x7F, UInt8.random(in: 1...0xFE, using: &generator)] where bytes[position] != value {
                var mutated = bytes
                mutated[position] = value
                Self.exercise(mutated, name: "flipped.car")
                if position % 97 == 0 { FuzzSeeds.export(Data(mutated), harness: "car", name: "flip-\(position)-\(value)") }
            }
        }
    }

    @Test(Fixtures.enabled) func truncationsAndFlipsOfTheRealCatalog() throws {
        let bytes = [UInt8](try Data(contentsOf: Fixtures.url("car", "acextract_assets_iphone.car")))
        var generator = Generator(state: 2026)
        for _ in 0..<150 {
            Self.exercise(Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator))), name: "real.car", withPixels: false)
        }
        var count = 0
        for _ in 0..<400 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            // Decoding the atlases' pixels is slow in a debug build: every 25th catalog goes that far.
            count += 1
            Self.exercise(mutated, name: "real.car", withPixels: count % 25 == 0)
        }
    }

    /// The blocks' addresses, read from the index (for aiming a mutation).
    static func blockAddresses(_ bytes: [UInt8]) -> [Int] {
        func be32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        let index = be32(16)
        return (0..<be32(index)).map { be32(index + 4 + 8 * $0) }
    }

    @Test func loopsInTreesAreRefused() throws {
        var bytes = SyntheticCatalog.bytes
        let catalog = try AssetCatalog(bytes: bytes, file: "loop.car")
        let addresses = Self.blockAddresses(bytes)
        // The RENDITIONS tree: header -> index node -> first leaf; point the leaf's forward link at itself.
        let header = addresses[try #require(catalog.store.variables["RENDITIONS"])]
        let index = addresses[bytes[(header + 8)..<(header + 12)].reduce(0) { $0 << 8 | Int($1) }]
        let leafNumber = bytes[(index + 12)..<(index + 16)].reduce(0) { $0 << 8 | Int($1) }
        let leaf = addresses[leafNumber]
        bytes.replaceSubrange((leaf + 4)..<(leaf + 8), with: TestCatalogWriter.be32(leafNumber))
        let error = try requireDiagnostic(AssetCatalogProblem.self) { try AssetCatalog(bytes: bytes, file: "loop.car") }
        #expect(
            error.description
                == "loop.car: block \(leafNumber) (RENDITIONS index child): the 'RENDITIONS' tree's leaves loop back to block \(leafNumber)"
        )
        FuzzSeeds.export(Data(bytes), harness: "car", name: "leaf-loop")
    }

    @Test func outOfBoundsBlocksAndNonsenseAreNamed() throws {
        #expect(
            throws: Diagnostic.assetCatalog(
                "not a BOM store: the file does not start with 'BOMStore'", file: "x.car", location: "BOM header")
        ) {
            try AssetCatalog(bytes: Array("PK\u{3}\u{4}".utf8), file: "x.car")
        }
        var bytes = SyntheticCatalog.bytes
        let index = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        bytes.replaceSubrange((index + 4 + 8 * 3 + 4)..<(index + 4 + 8 * 3 + 8), with: TestCatalogWriter.be32(0x7FFF_FFFF))
        let error = try requireDiagnostic(AssetCatalogProblem.self) { try AssetCatalog(bytes: bytes, file: "x.car") }
        #expect(error.description.hasPrefix("x.car: block index at byte \(index): block 3 at byte "))
        #expect(error.description.hasSuffix("(2147483647 bytes) runs past the end of the file (\(bytes.count) bytes)"))
    }
}
