/// The signature slot's blob wrapper (magic `0xfade0b01`): a CMS SignedData in DER, detached,
/// over the primary CodeDirectory. Empty for an ad-hoc signature.
public struct CMSBlob: Sendable, Equatable {
    /// The DER bytes of the CMS ContentInfo.
    public var cms: [UInt8]

    public init(cms: [UInt8]) { self.cms = cms }

    public init(bytes: [UInt8]) throws {
        let reader = ByteReader(bytes)
        let header = try BlobHeader(reader, at: 0, expecting: BlobMagic.blobWrapper, what: "CMS signature blob")
        cms = try reader.slice(8, header.length - 8, what: "CMS signature")
    }

    /// Whether the signature is ad-hoc (the wrapper holds nothing).
    public var isEmpty: Bool { cms.isEmpty }

    /// The blob's bytes.
    public func bytes() -> [UInt8] {
        var out = ByteWriter()
        out.u32be(BlobMagic.blobWrapper)
        out.u32be(UInt32(truncatingIfNeeded: 8 + cms.count))
        out.append(cms)
        return out.bytes
    }
}
