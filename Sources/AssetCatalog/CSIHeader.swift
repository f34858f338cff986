/// The header of one rendition (a CoreUI "CSI", tag `ISTC`): its size, scale, pixel format,
/// layout and name, followed by tagged values (TLVs) and then the rendition data.
public struct CSIHeader: Sendable, Equatable {
    /// The header's fixed size; the TLVs follow it.
    static let size = 184

    /// The CSI format version (1).
    public var version: Int
    /// Rendition flags (bit 2: vector based, bit 3: opaque, bits 4–7: bitmap encoding, …).
    public var flags: Int
    /// The size in pixels (0 for renditions without pixels).
    public var width: Int
    public var height: Int
    /// The scale factor ×100 (200 for @2x); 0 for renditions without pixels.
    public var scaleFactor: Int
    /// The pixel format as a four-character code: `ARGB`, `GA8 `, `PDF `, `JPEG`, `HEIF`, `DATA`, …
    public var pixelFormat: String
    /// The colour space (0 sRGB-like device RGB, …), the low four bits of the field.
    public var colorSpaceID: Int
    /// The layout (10–12 images, 1003 internal reference, 1004 packed atlas, 1010 multisize set, …).
    public var layout: Int
    /// The source file name the rendition came from (`icon@2x.png`, `ZZZZPackedAsset-2.0.0`, …).
    public var name: String
    /// Bytes per row of the pixel data (TLV 1007), when given.
    public var bytesPerRow: Int?
    /// Where in an atlas this rendition's pixels are (TLV 1010), when it has no pixels of its own.
    public var internalReference: InternalReference?
    /// Every TLV tag present, in order.
    public var tlvTags: [Int]

    /// Where the rendition data lies in the rendition's bytes.
    var dataOffset: Int
    var dataLength: Int

    init(_ view: ByteView) throws {
        guard view.hasTag(0, "ISTC") else { throw view.failure("rendition does not start with 'ISTC'") }
        version = try view.u32le(4, "CSI version")
        flags = try view.u32le(8, "rendition flags")
        width = try view.u32le(12, "width")
        height = try view.u32le(16, "height")
        scaleFactor = try view.u32le(20, "scale factor")
        pixelFormat = try view.u32le(24, "pixel format") == 0 ? "none" : try view.fourCC(24, "pixel format")
        colorSpaceID = try view.u32le(28, "colour space") & 0xF
        layout = try view.u16le(36, "layout")
        name = try view.string(40, 128, "name")
        let tlvLength = try view.u32le(168, "TLV length")
        let renditionLength = try view.u32le(180, "rendition data length")
        let tlvs = try view.view(Self.size, tlvLength, "TLVs")
        dataOffset = Self.size + tlvLength
        dataLength = renditionLength
        try view.check(dataOffset, dataLength, "rendition data")
        tlvTags = []
        var offset = 0
        while offset + 8 <= tlvs.count {
            let tag = try tlvs.u32le(offset, "TLV tag")
            let length = try tlvs.u32le(offset + 4, "TLV \(tag) length")
            let value = try tlvs.view(offset + 8, length, "TLV \(tag)")
            tlvTags.append(tag)
            switch tag {
            case 1007: bytesPerRow = try value.u32le(0, "bytes per row")
            case 1010: internalReference = try InternalReference(value)
            default: break
            }
            offset += 8 + length
        }
    }
}

/// A rendition whose pixels are a rectangle of another rendition (a `ZZZZPackedAsset` atlas).
public struct InternalReference: Sendable, Equatable {
    /// The rectangle in the atlas; `y` is measured from the atlas's **bottom** edge (Core
    /// Graphics' origin), so the top row in the atlas is `atlasHeight - y - height`.
    public var x: Int, y: Int, width: Int, height: Int
    /// The atlas's key, as (attribute, value) pairs; attributes not named are 0.
    public var target: RenditionKey

    static let maximumKeyLength = 1024

    init(_ view: ByteView) throws {
        guard view.hasTag(0, "KLNI") else { throw view.failure("internal reference does not start with 'INLK' (KLNI in the file)") }
        x = try view.u32le(8, "reference x")
        y = try view.u32le(12, "reference y")
        width = try view.u32le(16, "reference width")
        height = try view.u32le(20, "reference height")
        let keyLength = try view.u32le(26, "reference key length")
        guard keyLength <= Self.maximumKeyLength else { throw view.failure("reference key length \(keyLength) is too long") }
        let key = try view.view(30, keyLength, "reference key")
        var values: [RenditionAttribute: Int] = [:]
        for index in 0..<(keyLength / 4) {
            let attribute = try key.u16le(4 * index, "reference key attribute")
            values[RenditionAttribute(rawValue: attribute)] = try key.u16le(4 * index + 2, "reference key value")
        }
        target = RenditionKey(values: values)
    }
}
