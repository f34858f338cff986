import Foundation
import SystemSupport

/// A compiled asset catalog (`Assets.car`) read from bytes: its header, key format and every
/// rendition with its facet name, size, scale, idiom, pixel format and encoding.
///
/// Opening reads every rendition's header and checks every offset and length against the file;
/// decoding pixels is ``RenditionDecoder``'s job.
public struct AssetCatalog: Sendable {
    /// The path the catalog was read from, for errors.
    public var file: String { store.file }
    /// The BOM container the catalog is stored in.
    public let store: BOMStore
    /// The catalog header (`CARHEADER`).
    public let header: CARHeader
    /// The attributes every rendition key is made of (`KEYFORMAT`).
    public let keyFormat: KeyFormat
    /// Every rendition of the `RENDITIONS` tree, in tree order.
    public let renditions: [Rendition]
    /// Appearance names (`UIAppearanceDark`, …) by the value rendition keys carry; empty for
    /// catalogs without appearances, whose renditions all have appearance 0 ("any").
    public let appearanceNames: [Int: String]
    let indexByKey: [RenditionKey: Int]

    /// Reads the catalog at `path`.
    public init(path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Diagnostic.assetCatalog("cannot be read: \(FoundationError.reason(error))", file: path)
        }
        try self.init(bytes: [UInt8](data), file: path)
    }

    /// Reads a catalog held in memory; `file` names it in errors.
    public init(bytes: [UInt8], file: String) throws {
        store = try BOMStore(bytes: bytes, file: file)
        guard let headerView = try store.variable("CARHEADER") else {
            throw Diagnostic.assetCatalog("the catalog has no CARHEADER", file: file, location: "variables table")
        }
        header = try CARHeader(headerView)
        guard let formatView = try store.variable("KEYFORMAT") else {
            throw Diagnostic.assetCatalog("the catalog has no KEYFORMAT", file: file, location: "variables table")
        }
        keyFormat = try KeyFormat(formatView)
        let facets = try FacetKeys(store: store)
        appearanceNames = try AppearanceKeys(store: store).namesByValue
        var renditions: [Rendition] = []
        var indexByKey: [RenditionKey: Int] = [:]
        for entry in try BOMTree.entries(of: store, named: "RENDITIONS") {
            let key = try RenditionKey(entry.key, format: keyFormat)
            let header = try CSIHeader(entry.value)
            let data = try entry.value.view(header.dataOffset, header.dataLength, "rendition data", what: "rendition '\(header.name)'")
            let rendition = Rendition(
                key: key, facetName: facets.namesByIdentifier[key[.identifier]], header: header, payload: try PixelPayload.read(data))
            if indexByKey[key] == nil { indexByKey[key] = renditions.count }
            renditions.append(rendition)
        }
        self.renditions = renditions
        self.indexByKey = indexByKey
    }

    /// The rendition with exactly this key, if any.
    public func rendition(for key: RenditionKey) -> Rendition? {
        indexByKey[key].map { renditions[$0] }
    }

    /// Whether a rendition is for the default look: appearance 0 ("any"), or one whose name says
    /// light, as opposed to dark, tinted or high-contrast variants.
    public func isDefaultAppearance(_ rendition: Rendition) -> Bool {
        guard rendition.appearance != 0 else { return true }
        guard let name = appearanceNames[rendition.appearance]?.lowercased() else { return false }
        return ["dark", "tint", "contrast"].allSatisfy { !name.contains($0) }
    }

    /// The renditions of one facet (asset name, such as `AppIcon`), in tree order.
    public func renditions(named facet: String) -> [Rendition] {
        renditions.filter { $0.facetName == facet }
    }

    /// The compressed payload of a rendition: one byte array per chunk (empty when it has none).
    public func compressedPayload(of rendition: Rendition) -> [[UInt8]] {
        switch rendition.payload {
        case .pixels(let pixels): return pixels.chunks.map { Array(store.bytes[$0.bytes]) }
        case .rawData(let range): return [Array(store.bytes[range])]
        default: return []
        }
    }
}
