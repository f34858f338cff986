import SystemSupport

/// Where a slice's new signature goes, and the load-command edits that put it there, as Apple's
/// signer makes them: the signature starts at the code limit (the end of `__LINKEDIT`'s content,
/// or where the old signature started, 16-byte aligned), `LC_CODE_SIGNATURE` points at it (added
/// in the free space after the load commands when the slice has none), and `__LINKEDIT`'s file
/// size grows to cover it, its VM size rounded up to the segment alignment.
///
/// The new slice is ``head`` (the header and load commands, patched), then the original bytes from
/// `head.count` to ``contentEnd``, zeros up to ``codeLimit``, and ``reserved`` bytes of signature.
struct SliceSignatureLayout: Sendable {
    /// The patched header and load commands: the first bytes of the new slice.
    let head: [UInt8]
    /// Where the original content the new slice keeps ends (its old signature or its end).
    let contentEnd: Int
    /// Where the signature starts: what the CodeDirectories hash up to.
    let codeLimit: Int
    /// The bytes `LC_CODE_SIGNATURE` reserves for the signature (the SuperBlob, then zeros).
    let reserved: Int

    /// The size of the signed slice.
    var sliceSize: Int { codeLimit + reserved }

    /// The executable segment a CodeDirectory records: `__TEXT`'s file offset and size.
    let executableSegment: (base: UInt64, limit: UInt64)

    /// Plans the signature of `slice` (whose bytes are `original`) with `reserved` bytes for it.
    ///
    /// Throws a one-line error for a layout a signature cannot be added to: a big-endian slice, no
    /// `__LINKEDIT` or one that is not last, data after it, or no room for `LC_CODE_SIGNATURE`.
    init(slice: MachOSlice, original: UnsafeRawBufferPointer, reserved: Int) throws {
        let place = "slice \(slice.cpu)"
        guard original.count >= 8, original.load(as: UInt32.self) == (slice.is64 ? MachOSlice.magic64 : MachOSlice.magic32) else {
            throw Diagnostic.codeSign(
                .unsupported, "is not a little-endian Mach-O slice; only iOS's little-endian code can be signed", location: place)
        }
        guard let linkedit = slice.segment(named: "__LINKEDIT") else {
            throw Diagnostic.codeSign(.unsupported, "has no __LINKEDIT segment to hold a signature", location: place)
        }
        let linkeditEnd = Int(linkedit.fileOffset + linkedit.fileSize)
        if let later = slice.segments.first(where: { $0.name != "__LINKEDIT" && $0.fileSize > 0 && $0.fileOffset >= linkedit.fileOffset }) {
            throw Diagnostic.codeSign(
                .unsupported, "segment \(later.name) lies after __LINKEDIT; the signature must end the file", location: place)
        }
        var end: Int
        if let old = slice.codeSignature {
            end = Int(old.dataOffset)
            guard end >= Int(linkedit.fileOffset), end <= linkeditEnd else {
                throw Diagnostic.codeSign(
                    .unsupported,
                    "the old signature (at byte \(old.dataOffset)) is not inside __LINKEDIT (bytes \(linkedit.fileOffset)..<\(linkeditEnd))",
                    location: place)
            }
        } else {
            end = linkeditEnd
            guard end == slice.size else {
                throw Diagnostic.codeSign(
                    .unsupported,
                    "holds \(slice.size - end) bytes after __LINKEDIT (which ends at byte \(end)); a signature must end the file",
                    location: place)
            }
        }
        contentEnd = end
        codeLimit = (end + 15) & ~15
        self.reserved = reserved
        guard let text = CodeDirectoryParameters.executableSegment(of: slice) else {
            throw Diagnostic.codeSign(.unsupported, "has no __TEXT segment", location: place)
        }
        executableSegment = text

        let sizeOfCommands = Int(original.load(fromByteOffset: 20, as: UInt32.self))
        let commandsEnd = slice.headerSize + sizeOfCommands
        var head = [UInt8](UnsafeRawBufferPointer(rebasing: original[0..<commandsEnd]))
        func put32(_ value: UInt32, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { head.replaceSubrange(offset..<offset + 4, with: $0) }
        }
        func put64(_ value: UInt64, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { head.replaceSubrange(offset..<offset + 8, with: $0) }
        }
        if let command = slice.loadCommands.first(where: { $0.command == LoadCommandType.codeSignature }) {
            put32(UInt32(codeLimit), at: command.offset + 8)
            put32(UInt32(reserved), at: command.offset + 12)
        } else {
            let room = SliceSignatureLayout.firstContentOffset(slice) - commandsEnd
            guard room >= 16 else {
                throw Diagnostic.codeSign(
                    .unsupported,
                    "has \(room) free bytes after its load commands, under the 16 LC_CODE_SIGNATURE needs; relink with -headerpad",
                    location: place)
            }
            head += [UInt8](repeating: 0, count: 16)
            put32(LoadCommandType.codeSignature, at: commandsEnd)
            put32(16, at: commandsEnd + 4)
            put32(UInt32(codeLimit), at: commandsEnd + 8)
            put32(UInt32(reserved), at: commandsEnd + 12)
            put32(UInt32(slice.loadCommands.count + 1), at: 16)
            put32(UInt32(sizeOfCommands + 16), at: 20)
        }
        guard let command = slice.loadCommands.first(where: { SliceSignatureLayout.isSegment($0, named: "__LINKEDIT", in: original) })
        else {
            throw Diagnostic.codeSign(.unsupported, "has no __LINKEDIT segment command", location: place)
        }
        let fileSize = UInt64(codeLimit + reserved) - linkedit.fileOffset
        let alignment: UInt64 = slice.cpu.type & 0xff == CPUType.arm && slice.cpu.type != CPUType.arm ? 0x4000 : 0x1000
        let vmSize = (fileSize + alignment - 1) & ~(alignment - 1)
        if command.command == LoadCommandType.segment64 {
            put64(vmSize, at: command.offset + 32)
            put64(fileSize, at: command.offset + 48)
        } else {
            guard fileSize <= UInt32.max else { throw Diagnostic.codeSign(.unsupported, "__LINKEDIT would pass 4 GiB", location: place) }
            put32(UInt32(vmSize), at: command.offset + 28)
            put32(UInt32(fileSize), at: command.offset + 36)
        }
        self.head = head
    }

    /// The first byte after the load commands that holds content: the lowest file offset of a section
    /// or of a segment that starts past the header.
    static func firstContentOffset(_ slice: MachOSlice) -> Int {
        var lowest = slice.size
        for segment in slice.segments where segment.fileSize > 0 {
            if segment.fileOffset > 0 { lowest = min(lowest, Int(segment.fileOffset)) }
            for section in segment.sections where section.fileOffset > 0 && section.size > 0 {
                lowest = min(lowest, Int(section.fileOffset))
            }
        }
        return lowest
    }

    static func isSegment(_ command: LoadCommand, named name: String, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard command.command == LoadCommandType.segment64 || command.command == LoadCommandType.segment else { return false }
        let field = UnsafeRawBufferPointer(rebasing: bytes[command.offset + 8..<command.offset + 24])
        return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self) == name
    }

    /// Runs `body` over bytes `range` of the new slice's code (below ``codeLimit``): in place in
    /// `original` where the range holds only original content, else from a copy with the head and
    /// the zero padding laid over it.
    func withCode<R>(_ range: Range<Int>, original: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if range.lowerBound >= head.count && range.upperBound <= contentEnd {
            return body(UnsafeRawBufferPointer(rebasing: original[range]))
        }
        var copy = [UInt8](repeating: 0, count: range.count)
        for index in range where index < contentEnd {
            copy[index - range.lowerBound] = index < head.count ? head[index] : original[index]
        }
        return copy.withUnsafeBytes(body)
    }
}
