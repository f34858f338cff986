/// Everything a ``CodeDirectory`` is built with apart from the code and the special-slot content:
/// the identity of the code, the directory's version and flags, how pages are hashed, where the code
/// ends, and the executable segment (version 0x20400 and later).
public struct CodeDirectoryParameters: Sendable, Equatable {
    public var identifier: String
    /// The team id (written from version 0x20200), or nil.
    public var teamID: String?
    public var version: UInt32
    /// ``CodeDirectory/Flag`` bits.
    public var flags: UInt32
    public var hashType: HashType
    /// The page size as a power of two (12 is 4 KiB; 0 hashes the code as one page).
    public var pageSizeLog2: UInt8
    public var platform: UInt8
    /// The number of bytes the code pages cover: the slice up to its signature (`LC_CODE_SIGNATURE`'s
    /// data offset). Written as the 32-bit code limit, or as the 64-bit one when it does not fit.
    public var codeLimit: UInt64
    /// The executable segment (`__TEXT`): its file offset and size, and ``CodeDirectory/ExecSegmentFlag`` bits.
    public var execSegmentBase: UInt64
    public var execSegmentLimit: UInt64
    public var execSegmentFlags: UInt64
    /// The hardened runtime version (0x20500 and later), 0 for none.
    public var runtime: UInt32

    public init(
        identifier: String, teamID: String?, version: UInt32, flags: UInt32 = 0, hashType: HashType, pageSizeLog2: UInt8 = 12,
        platform: UInt8 = 0, codeLimit: UInt64, execSegmentBase: UInt64 = 0, execSegmentLimit: UInt64 = 0, execSegmentFlags: UInt64 = 0,
        runtime: UInt32 = 0
    ) {
        self.identifier = identifier
        self.teamID = teamID
        self.version = version
        self.flags = flags
        self.hashType = hashType
        self.pageSizeLog2 = pageSizeLog2
        self.platform = platform
        self.codeLimit = codeLimit
        self.execSegmentBase = execSegmentBase
        self.execSegmentLimit = execSegmentLimit
        self.execSegmentFlags = execSegmentFlags
        self.runtime = runtime
    }

    /// The parameters `directory` was made with, so it can be built again from the code.
    public init(of directory: CodeDirectory) {
        self.init(
            identifier: directory.identifier, teamID: directory.teamID, version: directory.version, flags: directory.flags,
            hashType: directory.hashType, pageSizeLog2: directory.pageSizeLog2, platform: directory.platform,
            codeLimit: directory.effectiveCodeLimit, execSegmentBase: directory.execSegmentBase,
            execSegmentLimit: directory.execSegmentLimit, execSegmentFlags: directory.execSegmentFlags, runtime: directory.runtime)
    }

    /// The code limit of `slice`: where its embedded signature starts, or its whole size when unsigned.
    public static func codeLimit(of slice: MachOSlice) -> UInt64 {
        slice.codeSignature.map { UInt64($0.dataOffset) } ?? UInt64(slice.bytes.count)
    }

    /// The executable segment of `slice` as a CodeDirectory records it: `__TEXT`'s file offset and size.
    public static func executableSegment(of slice: MachOSlice) -> (base: UInt64, limit: UInt64)? {
        slice.segment(named: "__TEXT").map { ($0.fileOffset, $0.fileSize) }
    }
}
