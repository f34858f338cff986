import SystemSupport

/// The signature `LC_CODE_SIGNATURE` points at: a super blob (magic `0xfade0cc0`) holding the
/// CodeDirectories, the requirement set, the entitlements and the CMS signature.
///
/// Reading parses every blob it knows; ``superBlob`` keeps each blob's bytes as stored.
public struct EmbeddedSignature: Sendable {
    public let superBlob: SuperBlob
    /// The primary CodeDirectory (slot 0).
    public let codeDirectory: CodeDirectory?
    /// Alternate CodeDirectories (slots 0x1000…), in slot order.
    public let alternateCodeDirectories: [CodeDirectory]
    public let requirements: RequirementSet?
    public let entitlements: EntitlementsBlob?
    public let derEntitlements: EntitlementsBlob?
    public let signature: CMSBlob?
    /// Where the signature starts in its file, for error locations.
    public let base: Int

    /// Parses the signature in `bytes`; trailing padding after the super blob is allowed.
    public init(bytes: [UInt8], base: Int = 0) throws {
        self.base = base
        let blob = try SuperBlob(reading: ByteReader(bytes, base: base), expecting: BlobMagic.embeddedSignature, what: "embedded signature")
        superBlob = blob
        func parse<T>(_ slot: UInt32, _ what: String, _ make: ([UInt8]) throws -> T) throws -> T? {
            guard let entry = blob.entry(slot) else { return nil }
            return try within(what, only: CodeSignProblem.self) { try make(entry.bytes) }
        }
        codeDirectory = try parse(SignatureSlot.codeDirectory, "CodeDirectory") { try CodeDirectory(bytes: $0) }
        var alternates: [CodeDirectory] = []
        for entry in blob.entries
        where entry.type >= SignatureSlot.alternateCodeDirectories && entry.type < SignatureSlot.alternateCodeDirectories + 5 {
            alternates.append(
                try within("alternate CodeDirectory 0x\(String(entry.type, radix: 16))", only: CodeSignProblem.self) {
                    try CodeDirectory(bytes: entry.bytes)
                })
        }
        alternateCodeDirectories = alternates
        requirements = try parse(SignatureSlot.requirements, "requirements") { try RequirementSet(bytes: $0) }
        entitlements = try parse(SignatureSlot.entitlements, "entitlements") { try EntitlementsBlob(bytes: $0) }
        derEntitlements = try parse(SignatureSlot.derEntitlements, "DER entitlements") { try EntitlementsBlob(bytes: $0) }
        signature = try parse(SignatureSlot.signature, "CMS signature") { try CMSBlob(bytes: $0) }
    }

    /// Every CodeDirectory: the primary one first, then the alternates.
    public var codeDirectories: [CodeDirectory] { (codeDirectory.map { [$0] } ?? []) + alternateCodeDirectories }

    /// The bytes of the blob in `slot`, as stored.
    public func blob(_ slot: UInt32) -> [UInt8]? { superBlob.entry(slot)?.bytes }

    /// The super blob's bytes (without the padding that may follow it in `__LINKEDIT`).
    public func bytes() -> [UInt8] { superBlob.bytes() }
}
