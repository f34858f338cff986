/// One rendition of a compiled asset catalog: an image (or PDF, data, atlas, …) for one
/// combination of scale, idiom, appearance, size class and so on.
public struct Rendition: Sendable, Equatable {
    /// The rendition's key in the `RENDITIONS` tree.
    public var key: RenditionKey
    /// The facet (asset name, such as `AppIcon`) whose name identifier the key carries, when known.
    public var facetName: String?
    /// The rendition's CSI header and TLVs.
    public var header: CSIHeader
    /// What follows the header: pixels, raw data, nothing, …
    public var payload: RenditionPayload

    /// The source file name (`icon@2x.png`, `ZZZZPackedAsset-2.0.0`, …).
    public var name: String { header.name }
    /// The size in pixels, from the header.
    public var width: Int { header.width }
    public var height: Int { header.height }
    /// The scale (1, 2, 3), from the key, else from the header.
    public var scale: Int { key[.scale] != 0 ? key[.scale] : header.scaleFactor / 100 }
    /// The device family, when the key's value is one CoreUI defines.
    public var idiom: Idiom? { Idiom(rawValue: key[.idiom]) }
    /// The appearance (0 for any; light and dark are named in the catalog's appearance keys).
    public var appearance: Int { key[.appearance] }
    /// The pixel format as a four-character code (`ARGB`, `GA8 `, `PDF `, …, or `none`).
    public var pixelFormat: String { header.pixelFormat }
    /// True for a packed atlas (`ZZZZPackedAsset`) that other renditions point into.
    public var isPackedAtlas: Bool { header.layout == 1004 }

    /// How the rendition is stored: its compression (`lzfse`, `zlib`, `raw`, …), `internal reference`,
    /// `raw data`, `multisize image set`, `no data`, or the unknown payload's tag.
    public var encoding: String {
        if header.internalReference != nil { return "internal reference" }
        switch payload {
        case .pixels(let pixels): return pixels.compression.description
        case .rawData: return "raw data"
        case .multisizeImageSet: return "multisize image set"
        case .none: return "no data"
        case .other(let tag): return "payload '\(tag)'"
        }
    }

    /// One line naming the rendition for messages: `'AppIcon' icon-1.png 180x180 @2x iphone`.
    public var label: String {
        var parts = ["'\(facetName ?? "?")'", name, "\(width)x\(height)", "@\(scale)x", idiom?.name ?? "idiom \(key[.idiom])"]
        if appearance != 0 { parts.append("appearance \(appearance)") }
        return parts.joined(separator: " ")
    }
}
