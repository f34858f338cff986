/// Load command numbers this package reads (`<mach-o/loader.h>`).
public enum LoadCommandType {
    public static let segment: UInt32 = 0x1
    public static let segment64: UInt32 = 0x19
    public static let codeSignature: UInt32 = 0x1d
    public static let encryptionInfo: UInt32 = 0x21
    public static let encryptionInfo64: UInt32 = 0x2c
    public static let versionMinMacOS: UInt32 = 0x24
    public static let versionMinIPhoneOS: UInt32 = 0x25
    public static let versionMinTvOS: UInt32 = 0x2f
    public static let versionMinWatchOS: UInt32 = 0x30
    public static let buildVersion: UInt32 = 0x32
}

/// One load command: its number, where it is in the slice and its size.
public struct LoadCommand: Sendable, Equatable {
    public var command: UInt32
    /// Offset of the command from the start of the slice.
    public var offset: Int
    public var size: Int
}

/// A section of a segment (`section` or `section_64`).
public struct Section: Sendable, Equatable {
    public var name: String
    public var segmentName: String
    public var address: UInt64
    public var size: UInt64
    public var fileOffset: UInt32
    /// The section's type (low 8 bits) and attributes.
    public var flags: UInt32 = 0

    /// The section types that take memory but no bytes of the file: `S_ZEROFILL`,
    /// `S_GB_ZEROFILL` and `S_THREAD_LOCAL_ZEROFILL`.
    static let zeroFillTypes: Set<UInt32> = [0x1, 0xc, 0x12]

    /// Whether the section is zero-filled at load time, so it has no bytes in the file.
    public var isZeroFill: Bool { Section.zeroFillTypes.contains(flags & 0xff) }
}

/// A segment (`LC_SEGMENT` or `LC_SEGMENT_64`) with its sections.
public struct Segment: Sendable, Equatable {
    public var name: String
    public var vmAddress: UInt64
    public var vmSize: UInt64
    public var fileOffset: UInt64
    public var fileSize: UInt64
    public var maxProtection: UInt32
    public var initialProtection: UInt32
    public var flags: UInt32
    public var sections: [Section]
}

/// A dotted version as Mach-O packs it: `xxxx.yy.zz` in 16.8.8 bits.
public struct PackedVersion: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var raw: UInt32

    public init(raw: UInt32) { self.raw = raw }

    public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        raw = UInt32(major & 0xffff) << 16 | UInt32(minor & 0xff) << 8 | UInt32(patch & 0xff)
    }

    public var major: Int { Int(raw >> 16) }
    public var minor: Int { Int(raw >> 8 & 0xff) }
    public var patch: Int { Int(raw & 0xff) }

    /// `13.1` or `9.3.2`: the patch only when it is not zero, as `vtool` prints it.
    public var description: String { patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)" }

    public static func < (lhs: PackedVersion, rhs: PackedVersion) -> Bool { lhs.raw < rhs.raw }
}

/// The platform and minimum OS a slice was built for.
public struct MinimumOS: Sendable, Equatable {
    /// `LC_BUILD_VERSION`'s platform number (2 is iOS), or the one a `LC_VERSION_MIN_*` command implies.
    public var platform: UInt32
    public var version: PackedVersion
    public var sdk: PackedVersion

    /// The platform's name as `vtool` prints it.
    public var platformName: String {
        switch platform {
        case 1: return "macos"
        case 2: return "ios"
        case 3: return "tvos"
        case 4: return "watchos"
        case 5: return "bridgeos"
        case 6: return "maccatalyst"
        case 7: return "iossim"
        case 8: return "tvossim"
        case 9: return "watchossim"
        case 10: return "driverkit"
        case 11: return "visionos"
        case 12: return "visionossim"
        default: return "platform \(platform)"
        }
    }
}

/// `LC_ENCRYPTION_INFO(_64)`: the encrypted range and whether it is encrypted (`cryptid` not 0, as
/// App Store downloads are, which cannot be re-signed).
public struct EncryptionInfo: Sendable, Equatable {
    public var offset: UInt32
    public var size: UInt32
    public var cryptID: UInt32

    public var isEncrypted: Bool { cryptID != 0 }
}

/// `LC_CODE_SIGNATURE`: where the embedded signature is, relative to the slice.
public struct CodeSignatureLocation: Sendable, Equatable {
    public var dataOffset: UInt32
    public var dataSize: UInt32
}
