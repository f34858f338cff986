import Foundation
import SystemSupport

/// One executable as signed: each slice's architecture and CodeDirectories (the primary first).
public struct SignedExecutable: Sendable {
    public var slices: [(cpu: CPUType, codeDirectories: [CodeDirectory])]

    /// The cdhash of the first slice's primary CodeDirectory, in hex, as `codesign verify` prints it.
    public var cdhash: String {
        guard let primary = slices.first?.codeDirectories.first else { return "" }
        return primary.cdhash().hexString
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
        let signing = try MachOSigning(file: path, to: output, parameters: parameters)
        try signing.writeCode()
        return try signing.finish(parameters: parameters)
    }

    static func write(_ bytes: [UInt8], to fd: Int32, at offset: Int64) throws {
        let failure = bytes.withUnsafeBytes { positionedWriteAll(fd, $0, at: offset) }
        guard failure == 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be written: \(SystemError.describe(failure))") }
    }

    /// The fat header with each slice's new size, the slices placed one after another at their alignment.
    static func layOut(_ fat: FatHeader, sizes: [Int]) throws -> FatHeader {
        var architectures: [FatHeader.Architecture] = []
        var offset = UInt64(8 + fat.architectures.count * (fat.is64 ? 32 : 20))
        for (architecture, size) in zip(fat.architectures, sizes) {
            let alignment = UInt64(1) << UInt64(min(architecture.alignment, 20))
            offset = (offset + alignment - 1) & ~(alignment - 1)
            var moved = architecture
            moved.offset = offset
            moved.size = UInt64(size)
            guard fat.is64 || offset + moved.size <= UInt64(UInt32.max) else {
                throw Diagnostic.codeSign(.unsupported, "the signed file would pass the 4 GiB a 32-bit fat header can address")
            }
            architectures.append(moved)
            offset += moved.size
        }
        return FatHeader(is64: fat.is64, architectures: architectures)
    }
}

/// One Mach-O file being signed into a new file in two steps: its code written and hashed first
/// (``writeCode()``), then its signatures added (``finish(parameters:)``), so the code of an
/// executable can be written before the content of its special slots (its bundle's CodeResources)
/// is known. The reservation for each signature is planned with the parameters given at the start:
/// the final ones must have the same special slots (their content may differ, not which are there),
/// identifier, team and hash types, so every signature has the size planned.
// @unchecked Sendable: writeCode() and finish() run one after the other (the caller waits for the
// first before calling the second), each on one thread; the rest is set in init.
final class MachOSigning: @unchecked Sendable {
    let path: String
    private let map: MappedExecutable
    private let plans: [SlicePlan]
    private let header: [UInt8]
    private let offsets: [UInt64]
    private let writer: AtomicFileWriter
    /// Each slice's page hashes, one list per hash type, once ``writeCode()`` has run.
    private var pages: [[[[UInt8]]]] = []

    /// Maps `path` and plans its slices with `parameters`; the new file is written under a temporary
    /// name in `temporaryFolder` (by default `output`'s folder) and renamed to `output` by ``finish``.
    init(
        file path: String, to output: String, temporaryFolder: String? = nil, parameters: (MachOSlice) throws -> CodeSigningParameters
    ) throws {
        self.path = path
        do {
            map = try MappedExecutable(path: path)
            let map = map
            let file = try MachOFile(size: map.bytes.count) { offset, count in map.read(offset, count) }
            var plans: [SlicePlan] = []
            for slice in file.slices {
                if let encryption = slice.encryption, encryption.cryptID != 0 {
                    throw Diagnostic.codeSign(
                        .sliceNotSignable,
                        "is encrypted (App Store FairPlay, cryptid \(encryption.cryptID)); only a decrypted binary can be re-signed",
                        location: "slice \(slice.cpu)")
                }
                let start = Int(slice.fileOffset)
                let original = UnsafeRawBufferPointer(rebasing: map.bytes[start..<start + slice.size])
                plans.append(try SliceSigner.plan(slice: slice, original: original, parameters: try parameters(slice)))
            }
            self.plans = plans
            if let fat = file.fatHeader {
                let moved = try MachOSigner.layOut(fat, sizes: plans.map { $0.layout.sliceSize })
                header = moved.bytes()
                offsets = moved.architectures.map(\.offset)
            } else {
                header = []
                offsets = [0]
            }
            var info = stat()
            let mode = stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o755
            writer = try AtomicFileWriter(path: output, mode: mode, temporaryFolder: temporaryFolder)
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            throw error.inFile(path)
        }
    }

    /// Writes the fat header and every slice's code, hashing its pages on all cores.
    func writeCode() throws {
        try abortingOnError {
            let fd = writer.fileDescriptor, map = map
            try MachOSigner.write(header, to: fd, at: 0)
            pages = []
            for (plan, offset) in zip(plans, offsets) {
                let base = Int(plan.slice.fileOffset)
                pages.append(
                    try SliceSigner.writeCode(plan, to: fd, at: Int64(offset)) {
                        map.release(base + $0.lowerBound..<base + $0.upperBound)
                    })
            }
        }
    }

    /// Writes each slice's signature with the final `parameters` and renames the new file into place.
    func finish(parameters: (MachOSlice) throws -> CodeSigningParameters) throws -> SignedExecutable {
        try abortingOnError {
            guard pages.count == plans.count else { throw Diagnostic.codeSign("the code was not written before the signature") }
            var slices: [(cpu: CPUType, codeDirectories: [CodeDirectory])] = []
            for ((plan, offset), hashes) in zip(zip(plans, offsets), pages) {
                let final = SlicePlan(
                    slice: plan.slice, original: plan.original, layout: plan.layout, parameters: try parameters(plan.slice))
                let signature = try SliceSigner.signature(final, pages: hashes)
                try MachOSigner.write(signature.bytes, to: writer.fileDescriptor, at: Int64(offset) + Int64(plan.layout.codeLimit))
                slices.append((plan.slice.cpu, signature.directories))
            }
            try writer.commit()
            return SignedExecutable(slices: slices)
        }
    }

    /// Leaves the output as it was (the temporary file removed).
    func abort() { writer.abort() }

    /// Runs `body`; on an error, leaves the output as it was and rethrows it, a Diagnostic naming the file.
    private func abortingOnError<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            writer.abort()
            throw error.inFile(path)
        } catch {
            writer.abort()
            throw error
        }
    }
}
