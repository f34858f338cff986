import SystemSupport

/// The header of a universal ("fat") Mach-O file: one entry per architecture slice.
///
/// The header is big-endian; `fat_arch` entries are 20 bytes (magic `0xcafebabe`) or, in the
/// 64-bit form, 32 bytes with 64-bit offsets and sizes (magic `0xcafebabf`).
public struct FatHeader: Sendable, Equatable {
    /// One slice: where it is and how it is aligned.
    public struct Architecture: Sendable, Equatable {
        public var cpu: CPUType
        public var offset: UInt64
        public var size: UInt64
        /// The alignment as a power of two (`14` is 16 KiB).
        public var alignment: UInt32
        /// The 64-bit form's reserved word (kept so the header writes back exactly).
        public var reserved: UInt32

        public init(cpu: CPUType, offset: UInt64, size: UInt64, alignment: UInt32, reserved: UInt32 = 0) {
            self.cpu = cpu
            self.offset = offset
            self.size = size
            self.alignment = alignment
            self.reserved = reserved
        }
    }

    public static let magic32: UInt32 = 0xcafe_babe
    public static let magic64: UInt32 = 0xcafe_babf
    /// More architectures than any real file holds; Java class files share the magic and have large "counts".
    static let maxArchitectures = 64

    public var is64: Bool
    public var architectures: [Architecture]

    public init(is64: Bool, architectures: [Architecture]) {
        self.is64 = is64
        self.architectures = architectures
    }

    /// Whether `bytes` start with a fat magic.
    static func isFat(_ reader: ByteReader) -> Bool {
        guard let magic = try? reader.u32be(0) else { return false }
        return magic == magic32 || magic == magic64
    }

    /// Reads the header and checks that every slice lies inside the file, of `fileSize` bytes when
    /// `reader` holds only the header (else of the reader's size).
    init(reading reader: ByteReader, fileSize: Int? = nil) throws {
        let fileSize = fileSize ?? reader.count
        let magic = try reader.u32be(0, what: "the fat header")
        guard magic == FatHeader.magic32 || magic == FatHeader.magic64 else {
            throw Diagnostic.codeSign(at: 0, "not a universal binary (magic 0x\(String(magic, radix: 16)))")
        }
        is64 = magic == FatHeader.magic64
        let count = Int(try reader.u32be(4, what: "the architecture count"))
        guard count > 0, count <= FatHeader.maxArchitectures else {
            throw Diagnostic.codeSign(at: 4, "universal binary claims \(count) architectures (1 to \(FatHeader.maxArchitectures) expected)")
        }
        let entrySize = is64 ? 32 : 20
        var result: [Architecture] = []
        for index in 0..<count {
            let at = 8 + index * entrySize
            let cpu = CPUType(
                type: Int32(bitPattern: try reader.u32be(at, what: "fat_arch \(index)")),
                subtype: Int32(bitPattern: try reader.u32be(at + 4, what: "fat_arch \(index)")))
            let offset: UInt64, size: UInt64, alignment: UInt32, reserved: UInt32
            if is64 {
                offset = try reader.u64be(at + 8, what: "fat_arch \(index)")
                size = try reader.u64be(at + 16, what: "fat_arch \(index)")
                alignment = try reader.u32be(at + 24, what: "fat_arch \(index)")
                reserved = try reader.u32be(at + 28, what: "fat_arch \(index)")
            } else {
                offset = UInt64(try reader.u32be(at + 8, what: "fat_arch \(index)"))
                size = UInt64(try reader.u32be(at + 12, what: "fat_arch \(index)"))
                alignment = try reader.u32be(at + 16, what: "fat_arch \(index)")
                reserved = 0
            }
            let (end, overflow) = offset.addingReportingOverflow(size)
            guard !overflow, end <= UInt64(fileSize), offset >= UInt64(8 + count * entrySize) else {
                throw Diagnostic.codeSign(
                    at: at, "slice \(cpu) (\(size) bytes at offset \(offset)) lies outside the file (\(fileSize) bytes)")
            }
            guard alignment < 32 else {
                throw Diagnostic.codeSign(at: at, "slice \(cpu) has alignment 2^\(alignment)")
            }
            // Slices are separate ranges of separate architectures, as lipo writes them: a slice that shares
            // bytes with another, or a second slice of one architecture, is not one a loader would choose.
            for other in result {
                if other.cpu == cpu { throw Diagnostic.codeSign(at: at, "slice \(cpu) appears twice in the universal binary") }
                if offset < other.offset + other.size && other.offset < end {
                    throw Diagnostic.codeSign(
                        at:
                            at,
                        "slice \(cpu) (bytes \(offset)..<\(end)) overlaps slice \(other.cpu) (bytes \(other.offset)..<\(other.offset + other.size))"
                    )
                }
            }
            result.append(Architecture(cpu: cpu, offset: offset, size: size, alignment: alignment, reserved: reserved))
        }
        architectures = result
    }

    /// The header's bytes, exactly as read (the writer of a rebuilt file pads up to the first slice).
    public func bytes() -> [UInt8] {
        var out = ByteWriter()
        out.u32be(is64 ? FatHeader.magic64 : FatHeader.magic32)
        out.u32be(UInt32(architectures.count))
        for arch in architectures {
            out.u32be(UInt32(bitPattern: arch.cpu.type))
            out.u32be(UInt32(bitPattern: arch.cpu.subtype))
            if is64 {
                out.u64be(arch.offset)
                out.u64be(arch.size)
                out.u32be(arch.alignment)
                out.u32be(arch.reserved)
            } else {
                out.u32be(UInt32(truncatingIfNeeded: arch.offset))
                out.u32be(UInt32(truncatingIfNeeded: arch.size))
                out.u32be(arch.alignment)
            }
        }
        return out.bytes
    }
}
