/// The `KEYFORMAT` block: which attributes, in which order, make up every rendition key.
public struct KeyFormat: Sendable, Equatable {
    /// The attributes of a rendition key, one 16-bit value each, in key order.
    public var attributes: [RenditionAttribute]

    /// More attributes than this is not a key format CoreUI writes (it has fewer than 40).
    static let maximumAttributes = 64

    init(_ view: ByteView) throws {
        guard view.hasTag(0, "tmfk") else { throw view.failure("KEYFORMAT does not start with 'tmfk'") }
        let count = try view.u32le(8, "attribute count")
        guard count <= Self.maximumAttributes else {
            throw view.failure("KEYFORMAT claims \(count) attributes (at most \(Self.maximumAttributes))")
        }
        attributes = try (0..<count).map { RenditionAttribute(rawValue: try view.u32le(12 + 4 * $0, "attribute \($0)")) }
    }
}
