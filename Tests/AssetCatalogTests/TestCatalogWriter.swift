import Foundation

/// Writes small compiled asset catalogs for the tests and the fuzzer's seeds: a BOM store with
/// CARHEADER, KEYFORMAT, FACETKEYS and a RENDITIONS tree spread over several leaves (so forward
/// links are walked), holding whatever renditions a test describes.
struct TestCatalogWriter {
    /// One rendition to write.
    struct Rendition {
        var scale = 1
        var idiom = 0
        /// Written only when the catalog has ``appearances``.
        var appearance = 0
        var identifier = 0
        var element = 85
        var part = 181
        var dimension1 = 0
        var name = "image.png"
        var width = 1
        var height = 1
        var pixelFormat = "ARGB"
        var layout = 12
        var bytesPerRow: Int?
        /// (x, y from the bottom, width, height, atlas dimension1)
        var reference: (Int, Int, Int, Int, Int)?
        /// The bytes after the header and TLVs (see ``celm(_:_:chunks:)``).
        var data: [UInt8] = []
    }

    /// Attributes of every key: scale, idiom, identifier, element, part, dimension1.
    static let keyFormat = [12, 15, 17, 1, 2, 8]

    var facets: [(String, Int)] = []
    /// Appearance names and values for an APPEARANCEKEYS tree; when there are any, keys also
    /// carry the appearance attribute (last).
    var appearances: [(String, Int)] = []
    var renditions: [Rendition] = []
    var keyFormat: [Int] { appearances.isEmpty ? Self.keyFormat : Self.keyFormat + [7] }
    /// Renditions per leaf of the RENDITIONS tree.
    var leafSize = 2

    private var blocks: [[UInt8]] = [[]]

    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func be32(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    static func padded(_ text: String, _ length: Int) -> [UInt8] {
        Array((Array(text.utf8) + [UInt8](repeating: 0, count: length)).prefix(length))
    }

    /// A `CELM` payload: whole when `chunks` is nil, else one `KCBC` chunk per (rows, bytes).
    static func celm(_ compression: Int, _ bytes: [UInt8], chunks: [(Int, [UInt8])]? = nil) -> [UInt8] {
        var out = Array("MLEC".utf8) + le32(1) + le32(compression)
        guard let chunks else { return out + le32(bytes.count) + bytes }
        out += le32(chunks.count)
        for (rows, data) in chunks {
            out += Array("KCBC".utf8) + le32(0) + le32(0) + le32(rows) + le32(data.count) + data
        }
        return out
    }

    private mutating func add(_ block: [UInt8]) -> Int {
        blocks.append(block)
        return blocks.count - 1
    }

    static func csi(_ rendition: Rendition) -> [UInt8] {
        var tlvs: [UInt8] = []
        if let bytesPerRow = rendition.bytesPerRow { tlvs += le32(1007) + le32(4) + le32(bytesPerRow) }
        if let (x, y, width, height, atlas) = rendition.reference {
            let key = le16(1) + le16(9) + le16(2) + le16(181) + le16(8) + le16(atlas) + le16(12) + le16(rendition.scale)
            let value = Array("KLNI".utf8) + le32(0) + le32(x) + le32(y) + le32(width) + le32(height) + le16(12) + le32(key.count) + key
            tlvs += le32(1010) + le32(value.count) + value
        }
        var out = Array("ISTC".utf8) + le32(1) + le32(0) + le32(rendition.width) + le32(rendition.height) + le32(rendition.scale * 100)
        out += Array(padded(rendition.pixelFormat, 4).reversed()) + le32(1) + le32(0) + le16(rendition.layout) + le16(0)
        out += padded(rendition.name, 128) + le32(tlvs.count) + le32(1) + le32(0) + le32(rendition.data.count)
        return out + tlvs + rendition.data
    }

    /// A tree of (key, value) blocks, split into leaves of `leafSize` linked forward, under one index node.
    private mutating func tree(_ entries: [([UInt8], [UInt8])], leafSize: Int) -> Int {
        let pairs = entries.map { (add($0.1), add($0.0)) }
        let leafCount = max(1, (pairs.count + leafSize - 1) / leafSize)
        let first = blocks.count
        for leaf in 0..<leafCount {
            let part = Array(pairs.dropFirst(leaf * leafSize).prefix(leafSize))
            let forward = leaf + 1 < leafCount ? first + leaf + 1 : 0
            let backward = leaf > 0 ? first + leaf - 1 : 0
            _ = add(
                Self.be16(1) + Self.be16(part.count) + Self.be32(forward) + Self.be32(backward)
                    + part.flatMap { Self.be32($0.0) + Self.be32($0.1) })
        }
        let index = add(
            Self.be16(0) + Self.be16(leafCount) + Self.be32(0) + Self.be32(0)
                + (0..<leafCount).flatMap { Self.be32(first + $0) + Self.be32(0) })
        return add(Array("tree".utf8) + Self.be32(1) + Self.be32(index) + Self.be32(4096) + Self.be32(entries.count) + [0])
    }

    /// The catalog's bytes.
    mutating func bytes() -> [UInt8] {
        blocks = [[]]
        var variables: [(String, Int)] = []
        var header = Array("RATC".utf8) + Self.le32(374) + Self.le32(11) + Self.le32(0) + Self.le32(renditions.count)
        header += Self.padded("@(#)PROGRAM:CoreUI  PROJECT:CoreUI-test", 128) + Self.padded("adhocbuild TestCatalogWriter", 256)
        header += [UInt8](repeating: 0, count: 16) + Self.le32(0) + Self.le32(0) + Self.le32(0) + Self.le32(0)
        variables.append(("CARHEADER", add(header)))
        let format = Array("tmfk".utf8) + Self.le32(0) + Self.le32(keyFormat.count) + keyFormat.flatMap { Self.le32($0) }
        variables.append(("KEYFORMAT", add(format)))
        let facetEntries = facets.map { name, identifier in
            (
                Array(name.utf8),
                Self.le16(0) + Self.le16(0) + Self.le16(3) + Self.le16(1) + Self.le16(85) + Self.le16(2) + Self.le16(181) + Self.le16(17)
                    + Self.le16(identifier)
            )
        }
        variables.append(("FACETKEYS", tree(facetEntries, leafSize: 8)))
        if !appearances.isEmpty {
            variables.append(("APPEARANCEKEYS", tree(appearances.map { (Array($0.0.utf8), Self.le16($0.1)) }, leafSize: 8)))
        }
        let renditionEntries = renditions.map { rendition in
            (
                ([rendition.scale, rendition.idiom, rendition.identifier, rendition.element, rendition.part, rendition.dimension1]
                    + (appearances.isEmpty ? [] : [rendition.appearance])).flatMap { Self.le16($0) },
                Self.csi(rendition)
            )
        }
        variables.append(("RENDITIONS", tree(renditionEntries, leafSize: leafSize)))

        // Header (32 bytes, padded to 512), the blocks, the index, the variables.
        var out = [UInt8](repeating: 0, count: 512)
        var addresses: [(Int, Int)] = [(0, 0)]
        for block in blocks.dropFirst() {
            addresses.append((out.count, block.count))
            out += block
        }
        let indexOffset = out.count
        out += Self.be32(addresses.count) + addresses.flatMap { Self.be32($0.0) + Self.be32($0.1) }
        let variablesOffset = out.count
        out +=
            Self.be32(variables.count)
            + variables.flatMap { Self.be32($0.1) + [UInt8]($0.0.utf8.count == 0 ? [0] : [UInt8($0.0.utf8.count)]) + Array($0.0.utf8) }
        let head =
            Array("BOMStore".utf8) + Self.be32(1) + Self.be32(addresses.count) + Self.be32(indexOffset)
            + Self.be32(variablesOffset - indexOffset) + Self.be32(variablesOffset) + Self.be32(out.count - variablesOffset)
        out.replaceSubrange(0..<head.count, with: head)
        return out
    }
}
