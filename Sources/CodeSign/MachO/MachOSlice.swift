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
        let commandReader = LoadCommandReader(reader: reader, bigEndian: bigEndian, sliceSize: size)
        cpu = CPUType(type: Int32(bitPattern: try commandReader.u32(4)), subtype: Int32(bitPattern: try commandReader.u32(8)))
        fileType = try commandReader.u32(12)
        let count = Int(try commandReader.u32(16))
        let commandsSize = Int(try commandReader.u32(20))
        flags = try commandReader.u32(24)
        guard count <= MachOSlice.maxLoadCommands else {
            throw Diagnostic.codeSign(at: reader.base + 16, "\(count) load commands (at most \(MachOSlice.maxLoadCommands) expected)")
        }
        let commandsEnd = try reader.end(headerSize, commandsSize, what: "the load commands")
        let contents = try commandReader.read(count: count, start: headerSize, commandsSize: commandsSize, commandsEnd: commandsEnd)
        loadCommands = contents.commands
        segments = contents.segments
        codeSignature = contents.codeSignature
        minimumOS = contents.minimumOS
        encryption = contents.encryption
        if !isWhole, let signature = contents.codeSignature {
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
