import SystemSupport

/// The magic numbers that open each code-signing blob (`<Security/CSCommonPriv.h>`, `cs_blobs.h`).
public enum BlobMagic {
    public static let requirement: UInt32 = 0xfade_0c00
    public static let requirementSet: UInt32 = 0xfade_0c01
    public static let codeDirectory: UInt32 = 0xfade_0c02
    public static let embeddedSignature: UInt32 = 0xfade_0cc0
    public static let detachedSignature: UInt32 = 0xfade_0cc1
    public static let entitlements: UInt32 = 0xfade_7171
    public static let derEntitlements: UInt32 = 0xfade_7172
    /// A generic wrapper; the signature slot holds the CMS SignedData in one.
    public static let blobWrapper: UInt32 = 0xfade_0b01
}

/// The slots of an embedded signature, and the special-slot numbers the CodeDirectory hashes.
public enum SignatureSlot {
    public static let codeDirectory: UInt32 = 0
    public static let infoPlist: UInt32 = 1
    public static let requirements: UInt32 = 2
    public static let resourceDirectory: UInt32 = 3
    public static let application: UInt32 = 4
    public static let entitlements: UInt32 = 5
    public static let derEntitlements: UInt32 = 7
    /// The first alternate CodeDirectory; up to five follow it.
    public static let alternateCodeDirectories: UInt32 = 0x1000
    public static let signature: UInt32 = 0x10000
}

/// A blob's magic and its length field, checked against the bytes available.
struct BlobHeader {
    let magic: UInt32
    let length: Int

    /// Reads the 8-byte header at `offset` and checks that `length` bytes are there.
    init(_ reader: ByteReader, at offset: Int, what: String) throws {
        magic = try reader.u32be(offset, what: what)
        length = Int(try reader.u32be(offset + 4, what: what))
        guard length >= 8 else {
            throw Diagnostic.codeSign(at: reader.base + offset, "\(what) has length \(length), under its 8-byte header")
        }
        _ = try reader.end(offset, length, what: what)
    }

    /// Reads the header and requires `expected` as the magic.
    init(_ reader: ByteReader, at offset: Int, expecting expected: UInt32, what: String) throws {
        try self.init(reader, at: offset, what: what)
        guard magic == expected else {
            throw Diagnostic.codeSign(
                at:
                    reader.base + offset, "\(what) has magic 0x\(String(magic, radix: 16)), not 0x\(String(expected, radix: 16))")
        }
    }
}
