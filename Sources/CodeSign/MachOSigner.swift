import Foundation
import SystemSupport

/// One executable as signed: each slice's architecture and CodeDirectories (the primary first).
public struct SignedExecutable: Sendable {
    public var slices: [(cpu: CPUType, codeDirectories: [CodeDirectory])]

    /// The cdhash `codesign -d` reports: of the first slice's SHA-256 CodeDirectory (else its primary), in hex.
    public var cdhash: String {
        guard let directories = slices.first?.codeDirectories,
            let best = directories.first(where: { $0.hashType == .sha256 }) ?? directories.first
        else { return "" }
        return best.cdhash().map { String(format: "%02x", $0) }.joined()
    }
}

/// Signs a Mach-O file, thin or fat, into a new file: each slice gets its signature at the end of
/// `__LINKEDIT` (``SliceSignatureLayout``), and a fat file's slices are laid out again at their
/// alignment after the new fat header. The input is mapped, not read into memory; the output is
/// written under a temporary name and renamed, so a failure leaves both files as they were.
public enum MachOSigner {
    /// Signs the Mach-O file at `path` into `output` (which may be `path` itself), each slice with
    /// the parameters `parameters` gives for it. Errors are one line naming `path`.
    public static func sign(
        file path: String, to output: String, parameters: (MachOSlice) throws -> CodeSigningParameters
    ) throws -> SignedExecutable {
        do {
            let map = try MappedExecutable(path: path)
            let file = try MachOFile(size: map.bytes.count) { offset, count in map.read(offset, count) }
            var signed: [(slice: MachOSlice, original: UnsafeRawBufferPointer, result: SignedSlice)] = []
            for slice in file.slices {
                if let encryption = slice.encryption, encryption.cryptID != 0 {
                    throw CodeSignError(
                        "is encrypted (App Store FairPlay, cryptid \(encryption.cryptID)); only a decrypted binary can be re-signed",
                        location: "slice \(slice.cpu)")
                }
                let start = Int(slice.fileOffset)
                let original = UnsafeRawBufferPointer(rebasing: map.bytes[start..<start + slice.size])
                signed.append((slice, original, try SliceSigner.sign(slice: slice, original: original, parameters: try parameters(slice))))
            }
            var info = stat()
            let mode = stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o755
            let writer = try AtomicFileWriter(path: output, mode: mode)
            do {
                if let fat = file.fatHeader {
                    try writeFat(fat, signed.map { ($0.original, $0.result) }, to: writer.fileDescriptor)
                } else if let only = signed.first {
                    try only.result.write(to: writer.fileDescriptor, original: only.original)
                }
                try writer.commit()
            } catch {
                writer.abort()
                throw error
            }
            return SignedExecutable(slices: signed.map { ($0.slice.cpu, $0.result.codeDirectories) })
        } catch let error as CodeSignError {
            throw error.inFile(path)
        }
    }

    /// Writes the fat header with each slice's new offset and size, then the slices at their alignment.
    static func writeFat(_ fat: FatHeader, _ slices: [(original: UnsafeRawBufferPointer, signed: SignedSlice)], to fd: Int32) throws {
        var architectures: [FatHeader.Architecture] = []
        var offset = UInt64(8 + fat.architectures.count * (fat.is64 ? 32 : 20))
        for (architecture, slice) in zip(fat.architectures, slices) {
            let alignment = UInt64(1) << UInt64(min(architecture.alignment, 20))
            offset = (offset + alignment - 1) & ~(alignment - 1)
            var moved = architecture
            moved.offset = offset
            moved.size = UInt64(slice.signed.layout.sliceSize)
            guard fat.is64 || offset + moved.size <= UInt64(UInt32.max) else {
                throw CodeSignError("the signed file would pass the 4 GiB a 32-bit fat header can address")
            }
            architectures.append(moved)
            offset += moved.size
        }
        var written = UInt64(0)
        func pad(to target: UInt64) throws {
            try [UInt8](repeating: 0, count: Int(target - written)).withUnsafeBytes { try FileIO.writeAll(fd, $0) }
            written = target
        }
        let header = FatHeader(is64: fat.is64, architectures: architectures).bytes()
        try header.withUnsafeBytes { try FileIO.writeAll(fd, $0) }
        written = UInt64(header.count)
        for (architecture, slice) in zip(architectures, slices) {
            try pad(to: architecture.offset)
            try slice.signed.write(to: fd, original: slice.original)
            written += architecture.size
        }
    }
}
