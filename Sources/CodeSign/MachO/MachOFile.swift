import Foundation
import SystemSupport

/// A Mach-O file: one thin slice, or a universal binary with a ``FatHeader`` and its slices.
public struct MachOFile: Sendable {
    /// The universal header, or nil for a thin file.
    public let fatHeader: FatHeader?
    public let slices: [MachOSlice]

    /// Parses `data`; errors name the byte (and the slice) where the file went wrong.
    public init(data: Data) throws {
        try self.init(bytes: [UInt8](data))
    }

    public init(bytes: [UInt8]) throws {
        let reader = ByteReader(bytes)
        if FatHeader.isFat(reader) {
            let header = try FatHeader(reading: reader)
            fatHeader = header
            slices = try header.architectures.map { arch in
                // FatHeader checked that offset + size lies inside the file.
                let start = Int(arch.offset), end = Int(arch.offset + arch.size)
                return try within("slice \(arch.cpu)", only: CodeSignProblem.self) {
                    try MachOSlice(bytes: Array(bytes[start..<end]), fileOffset: arch.offset)
                }
            }
        } else {
            fatHeader = nil
            slices = [try MachOSlice(bytes: bytes)]
        }
    }

    /// Parses a file of `size` bytes without holding it: `read(offset, count)` returns that range of
    /// the file and is asked only for headers, load commands and embedded signatures (see
    /// ``MachOSlice/init(size:fileOffset:read:)``), so each slice's ``MachOSlice/hasAllBytes`` is false.
    public init(size: Int, read: @escaping (_ offset: Int, _ count: Int) throws -> [UInt8]) throws {
        let head = try read(0, min(size, 8))
        let magic = head.count >= 4 ? head.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : 0
        if magic == FatHeader.magic32 || magic == FatHeader.magic64, head.count == 8 {
            let count = Int(head[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            // Enough for the architecture table FatHeader accepts (it refuses larger counts first).
            let tableSize = 8 + min(count, FatHeader.maxArchitectures) * (magic == FatHeader.magic64 ? 32 : 20)
            let header = try FatHeader(reading: ByteReader(try read(0, min(size, tableSize))), fileSize: size)
            fatHeader = header
            slices = try header.architectures.map { arch in
                let start = Int(arch.offset)
                return try within("slice \(arch.cpu)", only: CodeSignProblem.self) {
                    try MachOSlice(size: Int(arch.size), fileOffset: arch.offset) { try read(start + $0, $1) }
                }
            }
        } else {
            fatHeader = nil
            slices = [try MachOSlice(size: size, read: read)]
        }
    }

    /// Reads and parses the file at `path`; errors name it.
    public init(contentsOf path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw Diagnostic.codeSign(.unreadable, "cannot read the file: \(FoundationError.reason(error))", file: path)
        }
        do {
            try self.init(data: data)
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            throw error.inFile(path)
        }
    }

    /// Whether `bytes` start like a Mach-O file (thin of either width or universal).
    public static func looksLikeMachO(_ prefix: some Collection<UInt8>) -> Bool {
        guard prefix.count >= 4 else { return false }
        let magic = prefix.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return [
            FatHeader.magic32, FatHeader.magic64, MachOSlice.magic32, MachOSlice.magic64, MachOSlice.magic32.byteSwapped,
            MachOSlice.magic64.byteSwapped
        ]
        .contains(magic)
    }
}
