import Foundation
import SystemSupport

/// One thin Mach-O image (a whole thin file, or one architecture of a universal file).
///
/// Reading checks every load command and segment against the slice's bounds, so later code can
/// rely on them; the bytes are kept for hashing the code pages.
public struct MachOSlice: Sendable {
    public static let magic32: UInt32 = 0xfeed_face
    public static let magic64: UInt32 = 0xfeed_facf
    /// More load commands than any real binary has; bounds the work a hostile header causes.
    static let maxLoadCommands = 65_536

    /// The slice's bytes; only its header and load commands when read by ``init(size:fileOffset:read:)``
    /// (``hasAllBytes`` false), whose code pages are hashed from where the caller keeps them.
    public let bytes: [UInt8]
    /// The slice's size in bytes.
    public let size: Int
    /// Whether ``bytes`` holds the whole slice.
    public let hasAllBytes: Bool
    /// The embedded signature's bytes, kept apart when ``bytes`` is only the load commands.
    private let signatureCopy: [UInt8]?
    /// Where the slice starts in its file (0 for a thin file).
    public let fileOffset: UInt64
    public let is64: Bool
    public let cpu: CPUType
    public let fileType: UInt32
    public let flags: UInt32
    public let headerSize: Int
    public let loadCommands: [LoadCommand]
    public let segments: [Segment]
    public let codeSignature: CodeSignatureLocation?
    public let minimumOS: MinimumOS?
    public let encryption: EncryptionInfo?

    /// Parses the slice in `bytes` (which start with a Mach-O magic).
    public init(bytes: [UInt8], fileOffset: UInt64 = 0) throws {
        try self.init(prefix: bytes, size: bytes.count, fileOffset: fileOffset, isWhole: true) { _, _ in [] }
    }

    /// Parses a slice of `size` bytes without holding it: `read(offset, count)` returns that range
    /// of the slice, and is asked only for the header, the load commands and the embedded signature.
    /// The same checks as ``init(bytes:fileOffset:)``, against `size`.
    public init(size: Int, fileOffset: UInt64 = 0, read: (_ offset: Int, _ count: Int) throws -> [UInt8]) throws {
        let head = try read(0, min(size, 32))
        var prefixSize = head.count
        if head.count >= 24 {
            let magic = head.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let little = magic == MachOSlice.magic32.byteSwapped || magic == MachOSlice.magic64.byteSwapped
            let field = head[20..<24].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let headerSize = magic == MachOSlice.magic64 || magic == MachOSlice.magic64.byteSwapped ? 32 : 28
            prefixSize = min(size, headerSize + Int(little ? field.byteSwapped : field))
        }
        let prefix = prefixSize > head.count ? try read(0, prefixSize) : head
        try self.init(prefix: prefix, size: size, fileOffset: fileOffset, isWhole: false, read: read)
    }

    /// Parses the header and load commands in `bytes` (the whole slice when `isWhole`, else the
    /// signature is copied through `read`).
    private init(
        prefix bytes: [UInt8], size: Int, fileOffset: UInt64, isWhole: Bool, read: (_ offset: Int, _ count: Int) throws -> [UInt8]
    ) throws {
        self.bytes = bytes
        self.size = size
        hasAllBytes = isWhole
        self.fileOffset = fileOffset
        let reader = ByteReader(bytes, base: Int(clamping: fileOffset))
        let magicBE = try reader.u32be(0, what: "the Mach-O header")
        let bigEndian: Bool
        switch magicBE {
        case MachOSlice.magic32, MachOSlice.magic64: bigEndian = true
        case MachOSlice.magic32.byteSwapped, MachOSlice.magic64.byteSwapped: bigEndian = false
        default:
            throw Diagnostic.codeSign(at: reader.base, "not a Mach-O file (magic 0x\(String(magicBE, radix: 16)))")
        }
        let magic = bigEndian ? magicBE : magicBE.byteSwapped
        is64 = magic == MachOSlice.magic64
        headerSize = is64 ? 32 : 28
        _ = try reader.end(0, headerSize, what: "the Mach-O header")
        func u32(_ at: Int, _ what: String = "a load command field") throws -> UInt32 {
            try reader.u32(at, bigEndian: bigEndian, what: what)
        }
        func u64(_ at: Int, _ what: String = "a load command field") throws -> UInt64 {
            try reader.u64(at, bigEndian: bigEndian, what: what)
        }
        cpu = CPUType(type: Int32(bitPattern: try u32(4)), subtype: Int32(bitPattern: try u32(8)))
        fileType = try u32(12)
        let count = Int(try u32(16))
        let commandsSize = Int(try u32(20))
        flags = try u32(24)
        guard count <= MachOSlice.maxLoadCommands else {
            throw Diagnostic.codeSign(at: reader.base + 16, "\(count) load commands (at most \(MachOSlice.maxLoadCommands) expected)")
        }
        let commandsEnd = try reader.end(headerSize, commandsSize, what: "the load commands")

        var commands: [LoadCommand] = []
        var segments: [Segment] = []
        var signature: CodeSignatureLocation?
        var minimum: MinimumOS?
        var encryption: EncryptionInfo?
        var at = headerSize
        for index in 0..<count {
            let command = try u32(at, "load command \(index)")
            let size = Int(try u32(at + 4, "load command \(index)"))
            guard size >= 8, size % 4 == 0, let stop = Optional(try reader.end(at, size, what: "load command \(index)")),
                stop <= commandsEnd
            else {
                throw Diagnostic.codeSign(
                    at:
                        reader.base + at,
                    "load command \(index) (0x\(String(command, radix: 16))) has size \(size), outside the \(commandsSize) bytes of load commands"
                )
            }
            commands.append(LoadCommand(command: command, offset: at, size: size))
            func need(_ minimum: Int) throws {
                guard size >= minimum else {
                    throw Diagnostic.codeSign(
                        at:
                            reader.base + at,
                        "load command \(index) (0x\(String(command, radix: 16))) is \(size) bytes, under the \(minimum) it needs")
                }
            }
            switch command {
            case LoadCommandType.segment, LoadCommandType.segment64:
                let wide = command == LoadCommandType.segment64
                let fixed = wide ? 72 : 56
                let sectionSize = wide ? 80 : 68
                try need(fixed)
                let name = MachOSlice.name(bytes, at + 8)
                let field = { (n: Int) throws -> UInt64 in
                    wide ? try u64(at + 24 + 8 * n) : UInt64(try u32(at + 24 + 4 * n))
                }
                let tail = at + (wide ? 56 : 40)
                let sectionCount = Int(try u32(tail + 8))
                let (sectionsBytes, overflow) = sectionCount.multipliedReportingOverflow(by: sectionSize)
                guard !overflow, fixed + sectionsBytes <= size else {
                    throw Diagnostic.codeSign(
                        at:
                            reader.base + at, "segment \(name) claims \(sectionCount) sections, more than its \(size) bytes hold")
                }
                var sections: [Section] = []
                for number in 0..<sectionCount {
                    let s = at + fixed + number * sectionSize
                    sections.append(
                        Section(
                            name: MachOSlice.name(bytes, s), segmentName: MachOSlice.name(bytes, s + 16),
                            address: wide ? try u64(s + 32) : UInt64(try u32(s + 32)),
                            size: wide ? try u64(s + 40) : UInt64(try u32(s + 36)),
                            fileOffset: try u32(s + (wide ? 48 : 40)), flags: try u32(s + (wide ? 64 : 56))))
                }
                let segment = Segment(
                    name: name, vmAddress: try field(0), vmSize: try field(1), fileOffset: try field(2), fileSize: try field(3),
                    maxProtection: try u32(tail), initialProtection: try u32(tail + 4), flags: try u32(tail + 12), sections: sections)
                let (segmentEnd, segmentOverflow) = segment.fileOffset.addingReportingOverflow(segment.fileSize)
                guard !segmentOverflow, segmentEnd <= UInt64(self.size) else {
                    throw Diagnostic.codeSign(
                        at:
                            reader.base + at,
                        "segment \(name) (\(segment.fileSize) bytes at offset \(segment.fileOffset)) runs past the end of the slice (\(self.size) bytes)"
                    )
                }
                segments.append(segment)
            case LoadCommandType.codeSignature:
                try need(16)
                let location = CodeSignatureLocation(dataOffset: try u32(at + 8), dataSize: try u32(at + 12))
                guard UInt64(location.dataOffset) + UInt64(location.dataSize) <= UInt64(self.size) else {
                    throw Diagnostic.codeSign(
                        at:
                            reader.base + at,
                        "LC_CODE_SIGNATURE (\(location.dataSize) bytes at offset \(location.dataOffset)) runs past the end of the slice (\(self.size) bytes)"
                    )
                }
                signature = location
            case LoadCommandType.buildVersion:
                try need(24)
                minimum = MinimumOS(
                    platform: try u32(at + 8), version: PackedVersion(raw: try u32(at + 12)), sdk: PackedVersion(raw: try u32(at + 16)))
            case LoadCommandType.versionMinIPhoneOS, LoadCommandType.versionMinMacOS, LoadCommandType.versionMinTvOS,
                LoadCommandType.versionMinWatchOS:
                try need(16)
                let platform: UInt32 =
                    [LoadCommandType.versionMinMacOS: 1, LoadCommandType.versionMinIPhoneOS: 2, LoadCommandType.versionMinTvOS: 3][command]
                    ?? 4
                if minimum == nil {
                    minimum = MinimumOS(
                        platform: platform, version: PackedVersion(raw: try u32(at + 8)), sdk: PackedVersion(raw: try u32(at + 12)))
                }
            case LoadCommandType.encryptionInfo, LoadCommandType.encryptionInfo64:
                try need(20)
                encryption = EncryptionInfo(offset: try u32(at + 8), size: try u32(at + 12), cryptID: try u32(at + 16))
            default:
                break
            }
            at += size
        }
        loadCommands = commands
        self.segments = segments
        codeSignature = signature
        minimumOS = minimum
        self.encryption = encryption
        if !isWhole, let signature {
            let copy = try read(Int(signature.dataOffset), Int(signature.dataSize))
            guard copy.count == Int(signature.dataSize) else {
                throw Diagnostic.codeSign(at: reader.base + Int(signature.dataOffset), "the embedded signature cannot be read whole")
            }
            signatureCopy = copy
        } else {
            signatureCopy = nil
        }
    }

    /// A fixed 16-byte name field, up to its first NUL (bytes that are not UTF-8 are replaced).
    static func name(_ bytes: [UInt8], _ at: Int) -> String {
        let field = bytes[at..<min(at + 16, bytes.count)]
        let end = field.firstIndex(of: 0) ?? field.endIndex
        return String(decoding: field[field.startIndex..<end], as: UTF8.self)
    }

    /// The segment named `name` (`__TEXT`, `__LINKEDIT`).
    public func segment(named name: String) -> Segment? { segments.first { $0.name == name } }

    /// The bytes of the embedded signature `LC_CODE_SIGNATURE` points at, or nil when unsigned.
    public var signatureBytes: ArraySlice<UInt8>? {
        guard let location = codeSignature else { return nil }
        if let signatureCopy { return signatureCopy[...] }
        let start = Int(location.dataOffset)
        return bytes[start..<start + Int(location.dataSize)]
    }

    /// Reads the embedded signature, or returns nil when the slice has none.
    public func embeddedSignature() throws -> EmbeddedSignature? {
        guard let location = codeSignature, let signature = signatureBytes else { return nil }
        return try within("slice \(cpu)", only: CodeSignProblem.self) {
            try EmbeddedSignature(bytes: Array(signature), base: Int(clamping: fileOffset) + Int(location.dataOffset))
        }
    }
}
