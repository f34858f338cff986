import SystemSupport

/// A CodeDirectory (magic `0xfade0c02`): what a signature covers, as hashes of the special slots
/// (Info.plist, requirements, CodeResources, entitlements, …) and of every code page.
///
/// Every field up to the version the directory declares is kept, so ``bytes()`` writes the same
/// bytes back: the header for its version, the identifier, the team id, then the special-slot
/// hashes (highest slot first) and the code-slot hashes, as Apple's signer lays them out.
public struct CodeDirectory: Sendable, Equatable {
    /// Versions that added fields.
    public enum Version {
        public static let base: UInt32 = 0x20001
        public static let scatter: UInt32 = 0x20100
        public static let teamID: UInt32 = 0x20200
        public static let codeLimit64: UInt32 = 0x20300
        public static let execSegment: UInt32 = 0x20400
        public static let runtime: UInt32 = 0x20500
        public static let linkage: UInt32 = 0x20600
    }

    /// Flags in ``flags`` (`cs_blobs.h`).
    public enum Flag {
        public static let adhoc: UInt32 = 0x2
        public static let hard: UInt32 = 0x100
        public static let kill: UInt32 = 0x200
        public static let restrict: UInt32 = 0x800
        public static let enforcement: UInt32 = 0x1000
        public static let libraryValidation: UInt32 = 0x2000
        public static let runtime: UInt32 = 0x10000
        public static let linkerSigned: UInt32 = 0x20000
    }

    /// Flags in ``execSegmentFlags``.
    public enum ExecSegmentFlag {
        public static let mainBinary: UInt64 = 0x1
        public static let allowUnsigned: UInt64 = 0x10
        public static let debugger: UInt64 = 0x20
        public static let jit: UInt64 = 0x40
        public static let skipLibraryValidation: UInt64 = 0x80
        public static let canLoadCdHash: UInt64 = 0x100
        public static let canExecCdHash: UInt64 = 0x200
    }

    public var version: UInt32
    public var flags: UInt32
    public var codeLimit: UInt32
    public var hashType: HashType
    public var platform: UInt8
    /// The page size as a power of two (12 is 4 KiB; 0 means the whole file is one page).
    public var pageSizeLog2: UInt8
    public var spare2: UInt32
    /// Offset of a scatter vector (0x20100); nonzero scatter vectors are not supported.
    public var scatterOffset: UInt32
    public var identifier: String
    /// The team id (0x20200), or nil.
    public var teamID: String?
    public var spare3: UInt32
    /// The 64-bit code limit (0x20300); 0 when ``codeLimit`` is used.
    public var codeLimit64: UInt64
    public var execSegmentBase: UInt64
    public var execSegmentLimit: UInt64
    public var execSegmentFlags: UInt64
    /// The hardened runtime version (0x20500).
    public var runtime: UInt32
    /// Hashes of the code pages before encryption (0x20500), one per code slot, or empty.
    public var preEncryptHashes: [[UInt8]]
    /// Linkage fields (0x20600).
    public var linkageHashType: UInt8
    public var linkageApplicationType: UInt8
    public var linkageApplicationSubType: UInt16
    /// The linkage data (0x20600), or empty.
    public var linkage: [UInt8]
    /// Special-slot hashes: `specialSlots[0]` is slot 1 (Info.plist), `[1]` slot 2, … (all-zero when unused).
    public var specialSlots: [[UInt8]]
    /// The code slots' hashes end to end, ``codeSlotCount`` of them of one size: a large executable
    /// has tens of thousands, which as arrays of their own cost more to make and free than to check.
    public private(set) var codeSlotBytes: [UInt8]
    /// How many code slots there are (one per code page).
    public private(set) var codeSlotCount: Int

    /// One hash per code page (made from ``codeSlotBytes`` when asked for; the slots are of one size).
    public var codeSlots: [[UInt8]] {
        get {
            let size = codeSlotCount == 0 ? 0 : codeSlotBytes.count / codeSlotCount
            return (0..<codeSlotCount).map { Array(codeSlotBytes[$0 * size..<($0 + 1) * size]) }
        }
        set {
            codeSlotBytes = Array(newValue.joined())
            codeSlotCount = newValue.count
        }
    }

    /// A directory with the given content and every later field zero.
    public init(
        version: UInt32, flags: UInt32, hashType: HashType, identifier: String, teamID: String?, codeLimit: UInt64,
        pageSizeLog2: UInt8 = 12, platform: UInt8 = 0, specialSlots: [[UInt8]] = [], codeSlots: [[UInt8]] = []
    ) {
        self.version = version
        self.flags = flags
        self.hashType = hashType
        self.identifier = identifier
        self.teamID = teamID
        self.codeLimit = codeLimit <= UInt64(UInt32.max) ? UInt32(codeLimit) : 0
        self.codeLimit64 = codeLimit <= UInt64(UInt32.max) ? 0 : codeLimit
        self.pageSizeLog2 = pageSizeLog2
        self.platform = platform
        self.specialSlots = specialSlots
        codeSlotBytes = Array(codeSlots.joined())
        codeSlotCount = codeSlots.count
        spare2 = 0
        scatterOffset = 0
        spare3 = 0
        execSegmentBase = 0
        execSegmentLimit = 0
        execSegmentFlags = 0
        runtime = 0
        preEncryptHashes = []
        linkageHashType = 0
        linkageApplicationType = 0
        linkageApplicationSubType = 0
        linkage = []
    }

    /// The size of the fixed header for `version`.
    static func headerSize(_ version: UInt32) -> Int {
        if version >= Version.linkage { return 108 }
        if version >= Version.runtime { return 96 }
        if version >= Version.execSegment { return 88 }
        if version >= Version.codeLimit64 { return 64 }
        if version >= Version.teamID { return 52 }
        if version >= Version.scatter { return 48 }
        return 44
    }

    /// More code slots than a 4 GiB binary of 4 KiB pages needs; bounds what a hostile count allocates.
    static let maxSlots = 1 << 21
    static let maxSpecialSlots = 64

    /// The number of bytes the code pages cover.
    public var effectiveCodeLimit: UInt64 { codeLimit64 != 0 ? codeLimit64 : UInt64(codeLimit) }

    /// The page size in bytes (0 for "one page").
    public var pageSize: Int { pageSizeLog2 == 0 ? 0 : 1 << Int(pageSizeLog2) }

    /// The hash stored for special slot `slot` (1 is Info.plist), or nil when the directory has no such slot.
    public func specialSlot(_ slot: Int) -> [UInt8]? {
        slot >= 1 && slot <= specialSlots.count ? specialSlots[slot - 1] : nil
    }

    /// Parses the CodeDirectory in `bytes`.
    public init(bytes: [UInt8]) throws {
        try self.init(reading: ByteReader(bytes))
    }

    init(reading whole: ByteReader) throws {
        let header = try BlobHeader(whole, at: 0, expecting: BlobMagic.codeDirectory, what: "CodeDirectory")
        let r = try whole.sub(0, header.length, what: "CodeDirectory")
        version = try r.u32be(8, what: "CodeDirectory version")
        guard version >= Version.base, version >> 16 == 2 else {
            throw Diagnostic.codeSign(
                .unsupported,
                at: r.base + 8, "CodeDirectory version 0x\(String(version, radix: 16)) is not supported (0x2xxxx expected)")
        }
        let size = CodeDirectory.headerSize(version)
        _ = try r.end(0, size, what: "CodeDirectory header for version 0x\(String(version, radix: 16))")
        flags = try r.u32be(12)
        let hashOffset = Int(try r.u32be(16))
        let identOffset = Int(try r.u32be(20))
        let specialCount = Int(try r.u32be(24))
        let codeCount = Int(try r.u32be(28))
        codeLimit = try r.u32be(32)
        let hashSize = Int(try r.u8(36))
        let rawType = try r.u8(37)
        guard let type = HashType(rawValue: rawType) else {
            throw Diagnostic.codeSign(at: r.base + 37, "CodeDirectory hash type \(rawType) is unknown")
        }
        guard hashSize == type.size else {
            throw Diagnostic.codeSign(at: r.base + 36, "CodeDirectory hash size \(hashSize) does not match \(type) (\(type.size))")
        }
        hashType = type
        platform = try r.u8(38)
        pageSizeLog2 = try r.u8(39)
        guard pageSizeLog2 == 0 || (pageSizeLog2 >= 9 && pageSizeLog2 <= 24) else {
            throw Diagnostic.codeSign(at: r.base + 39, "CodeDirectory page size 2^\(pageSizeLog2) is not plausible")
        }
        spare2 = try r.u32be(40)
        scatterOffset = version >= Version.scatter ? try r.u32be(44) : 0
        guard scatterOffset == 0 else {
            throw Diagnostic.codeSign(.unsupported, at: r.base + 44, "CodeDirectory has a scatter vector, which is not supported")
        }
        let teamOffset = version >= Version.teamID ? Int(try r.u32be(48)) : 0
        spare3 = version >= Version.codeLimit64 ? try r.u32be(52) : 0
        codeLimit64 = version >= Version.codeLimit64 ? try r.u64be(56) : 0
        execSegmentBase = version >= Version.execSegment ? try r.u64be(64) : 0
        execSegmentLimit = version >= Version.execSegment ? try r.u64be(72) : 0
        execSegmentFlags = version >= Version.execSegment ? try r.u64be(80) : 0
        runtime = version >= Version.runtime ? try r.u32be(88) : 0
        let preEncryptOffset = version >= Version.runtime ? Int(try r.u32be(92)) : 0
        linkageHashType = version >= Version.linkage ? try r.u8(96) : 0
        linkageApplicationType = version >= Version.linkage ? try r.u8(97) : 0
        linkageApplicationSubType = version >= Version.linkage ? UInt16(try r.u32be(96) & 0xffff) : 0
        let linkageOffset = version >= Version.linkage ? Int(try r.u32be(100)) : 0
        let linkageSize = version >= Version.linkage ? Int(try r.u32be(104)) : 0

        guard identOffset >= size else {
            throw Diagnostic.codeSign(at: r.base + 20, "CodeDirectory identifier offset \(identOffset) lies inside its header")
        }
        identifier = try r.cString(identOffset, what: "CodeDirectory identifier")
        teamID = teamOffset == 0 ? nil : try r.cString(teamOffset, what: "CodeDirectory team id")
        guard specialCount <= CodeDirectory.maxSpecialSlots, codeCount <= CodeDirectory.maxSlots else {
            throw Diagnostic.codeSign(at: r.base + 24, "CodeDirectory claims \(specialCount) special and \(codeCount) code slots")
        }
        guard hashOffset >= specialCount * hashSize else {
            throw Diagnostic.codeSign(
                at: r.base + 16, "CodeDirectory hash offset \(hashOffset) leaves no room for \(specialCount) special slots")
        }
        _ = try r.end(hashOffset - specialCount * hashSize, (specialCount + codeCount) * hashSize, what: "CodeDirectory hash slots")
        specialSlots = (1...max(specialCount, 1)).prefix(specialCount).map { slot in
            let at = hashOffset - slot * hashSize
            return Array(r.bytes[at..<at + hashSize])
        }
        codeSlotBytes = Array(r.bytes[hashOffset..<hashOffset + codeCount * hashSize])
        codeSlotCount = codeCount
        if preEncryptOffset != 0 {
            let table = try r.slice(preEncryptOffset, codeCount * hashSize, what: "CodeDirectory pre-encryption hashes")
            preEncryptHashes = (0..<codeCount).map { Array(table[$0 * hashSize..<($0 + 1) * hashSize]) }
        } else {
            preEncryptHashes = []
        }
        linkage = linkageOffset == 0 ? [] : try r.slice(linkageOffset, linkageSize, what: "CodeDirectory linkage")
    }

    /// The blob's bytes.
    public func bytes() -> [UInt8] {
        let (head, tail) = pieces()
        var out = head
        out.reserveCapacity(head.count + codeSlotBytes.count + tail.count)
        out.append(contentsOf: codeSlotBytes)
        out.append(contentsOf: tail)
        return out
    }

    /// The blob's bytes but the code slots, in the two pieces around them, which ``bytes()`` joins with
    /// ``codeSlotBytes``: before them the header, identifier, team id and special slots; after them the
    /// pre-encryption hashes and the linkage. (The code slots are most of a large executable's blob,
    /// which ``cdhash()`` digests where they are instead of copying them.)
    private func pieces() -> (head: [UInt8], tail: [UInt8]) {
        let size = CodeDirectory.headerSize(version)
        let hashSize = hashType.size
        let identOffset = size
        let teamBytes = version >= Version.teamID ? teamID.map { $0.utf8.count + 1 } ?? 0 : 0
        let teamOffset = teamBytes == 0 ? 0 : size + identifier.utf8.count + 1
        let hashOffset = size + identifier.utf8.count + 1 + teamBytes + specialSlots.count * hashSize
        // Where the code slots end: the special slots are written as they are held.
        let slotsEnd = size + identifier.utf8.count + 1 + teamBytes + specialSlots.reduce(0) { $0 + $1.count } + codeSlotBytes.count
        var tail = ByteWriter()
        var preEncryptOffset = 0
        if !preEncryptHashes.isEmpty, version >= Version.runtime {
            preEncryptOffset = slotsEnd
            for hash in preEncryptHashes { tail.append(hash) }
        }
        var linkageOffset = 0
        if !linkage.isEmpty, version >= Version.linkage {
            linkageOffset = slotsEnd + tail.bytes.count
            tail.append(linkage)
        }
        let length = slotsEnd + tail.bytes.count

        var out = ByteWriter()
        out.bytes.reserveCapacity(slotsEnd - codeSlotBytes.count)
        out.u32be(BlobMagic.codeDirectory)
        out.u32be(UInt32(truncatingIfNeeded: length))
        out.u32be(version)
        out.u32be(flags)
        out.u32be(UInt32(truncatingIfNeeded: hashOffset))
        out.u32be(UInt32(truncatingIfNeeded: identOffset))
        out.u32be(UInt32(truncatingIfNeeded: specialSlots.count))
        out.u32be(UInt32(truncatingIfNeeded: codeSlotCount))
        out.u32be(codeLimit)
        out.u8(UInt8(hashSize))
        out.u8(hashType.rawValue)
        out.u8(platform)
        out.u8(pageSizeLog2)
        out.u32be(spare2)
        if version >= Version.scatter { out.u32be(scatterOffset) }
        if version >= Version.teamID { out.u32be(UInt32(teamOffset)) }
        if version >= Version.codeLimit64 {
            out.u32be(spare3)
            out.u64be(codeLimit64)
        }
        if version >= Version.execSegment {
            out.u64be(execSegmentBase)
            out.u64be(execSegmentLimit)
            out.u64be(execSegmentFlags)
        }
        if version >= Version.runtime {
            out.u32be(runtime)
            out.u32be(UInt32(truncatingIfNeeded: preEncryptOffset))
        }
        if version >= Version.linkage {
            out.u8(linkageHashType)
            out.u8(linkageApplicationType)
            out.u8(UInt8(linkageApplicationSubType >> 8))
            out.u8(UInt8(linkageApplicationSubType & 0xff))
            out.u32be(UInt32(truncatingIfNeeded: linkageOffset))
            out.u32be(UInt32(truncatingIfNeeded: linkage.count))
        }
        out.cString(identifier)
        if teamBytes > 0, let teamID { out.cString(teamID) }
        for slot in specialSlots.reversed() { out.append(slot) }
        return (out.bytes, tail.bytes)
    }

    /// The cdhash: the directory's digest with its own hash type, truncated to 20 bytes as
    /// `codesign -d -v` prints it and as signatures and CodeResources `cdhash` entries hold it.
    /// The blob is digested in its pieces, its code slots where they are: the digest of ``bytes()``.
    public func cdhash() -> [UInt8] {
        let (head, tail) = pieces()
        let stream = DigestStream(hashType)
        for piece in [head, codeSlotBytes, tail] { piece.withUnsafeBytes { stream.update($0) } }
        return Array(stream.finish().prefix(20))
    }
}
