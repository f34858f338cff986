import SystemSupport

/// Reads a slice's load commands, each checked against the load commands' bytes and every segment
/// and signature against the slice's size, so later code can rely on them.
struct LoadCommandReader {
    /// What the load commands say, in their order.
    struct Contents {
        var commands: [LoadCommand] = []
        var segments: [Segment] = []
        var codeSignature: CodeSignatureLocation?
        /// From `LC_BUILD_VERSION`, else the first `LC_VERSION_MIN_*`.
        var minimumOS: MinimumOS?
        var encryption: EncryptionInfo?
    }

    let reader: ByteReader
    let bigEndian: Bool
    /// The slice's size: no segment or signature may run past it.
    let sliceSize: Int

    func u32(_ at: Int, _ what: String = "a load command field") throws -> UInt32 {
        try reader.u32(at, bigEndian: bigEndian, what: what)
    }

    func u64(_ at: Int, _ what: String = "a load command field") throws -> UInt64 {
        try reader.u64(at, bigEndian: bigEndian, what: what)
    }

    /// Reads `count` load commands starting at `start`, all within `commandsSize` bytes that end at `commandsEnd`.
    func read(count: Int, start: Int, commandsSize: Int, commandsEnd: Int) throws -> Contents {
        var contents = Contents()
        var at = start
        for index in 0..<count {
            let command = try u32(at, "load command \(index)")
            let size = Int(try u32(at + 4, "load command \(index)"))
            let label = "load command \(index) (0x\(String(command, radix: 16)))"
            guard size >= 8, size % 4 == 0, let stop = Optional(try reader.end(at, size, what: "load command \(index)")),
                stop <= commandsEnd
            else {
                throw Diagnostic.codeSign(
                    at: reader.base + at, "\(label) has size \(size), outside the \(commandsSize) bytes of load commands")
            }
            contents.commands.append(LoadCommand(command: command, offset: at, size: size))
            let need = { (minimum: Int) throws in
                guard size >= minimum else {
                    throw Diagnostic.codeSign(at: reader.base + at, "\(label) is \(size) bytes, under the \(minimum) it needs")
                }
            }
            switch command {
            case LoadCommandType.segment, LoadCommandType.segment64:
                let wide = command == LoadCommandType.segment64
                try need(wide ? 72 : 56)
                contents.segments.append(try segment(at: at, size: size, wide: wide))
            case LoadCommandType.codeSignature:
                try need(16)
                contents.codeSignature = try codeSignature(at: at)
            case LoadCommandType.buildVersion:
                try need(24)
                contents.minimumOS = MinimumOS(
                    platform: try u32(at + 8), version: PackedVersion(raw: try u32(at + 12)), sdk: PackedVersion(raw: try u32(at + 16)))
            case LoadCommandType.versionMinIPhoneOS, LoadCommandType.versionMinMacOS, LoadCommandType.versionMinTvOS,
                LoadCommandType.versionMinWatchOS:
                try need(16)
                let platform: UInt32 =
                    [LoadCommandType.versionMinMacOS: 1, LoadCommandType.versionMinIPhoneOS: 2, LoadCommandType.versionMinTvOS: 3][command]
                    ?? 4
                if contents.minimumOS == nil {
                    contents.minimumOS = MinimumOS(
                        platform: platform, version: PackedVersion(raw: try u32(at + 8)), sdk: PackedVersion(raw: try u32(at + 12)))
                }
            case LoadCommandType.encryptionInfo, LoadCommandType.encryptionInfo64:
                try need(20)
                contents.encryption = EncryptionInfo(offset: try u32(at + 8), size: try u32(at + 12), cryptID: try u32(at + 16))
            default:
                break
            }
            at += size
        }
        return contents
    }

    /// An `LC_SEGMENT` or `LC_SEGMENT_64` of `size` bytes at `at` (its fixed part checked) and its sections.
    private func segment(at: Int, size: Int, wide: Bool) throws -> Segment {
        let fixed = wide ? 72 : 56
        let sectionSize = wide ? 80 : 68
        let name = MachOSlice.name(reader.bytes, at + 8)
        let field = { (n: Int) throws -> UInt64 in
            wide ? try u64(at + 24 + 8 * n) : UInt64(try u32(at + 24 + 4 * n))
        }
        let tail = at + (wide ? 56 : 40)
        let sectionCount = Int(try u32(tail + 8))
        let (sectionsBytes, overflow) = sectionCount.multipliedReportingOverflow(by: sectionSize)
        guard !overflow, fixed + sectionsBytes <= size else {
            throw Diagnostic.codeSign(
                at: reader.base + at, "segment \(name) claims \(sectionCount) sections, more than its \(size) bytes hold")
        }
        var sections: [Section] = []
        for number in 0..<sectionCount {
            let s = at + fixed + number * sectionSize
            sections.append(
                Section(
                    name: MachOSlice.name(reader.bytes, s), segmentName: MachOSlice.name(reader.bytes, s + 16),
                    address: wide ? try u64(s + 32) : UInt64(try u32(s + 32)),
                    size: wide ? try u64(s + 40) : UInt64(try u32(s + 36)),
                    fileOffset: try u32(s + (wide ? 48 : 40)), flags: try u32(s + (wide ? 64 : 56))))
        }
        let segment = Segment(
            name: name, vmAddress: try field(0), vmSize: try field(1), fileOffset: try field(2), fileSize: try field(3),
            maxProtection: try u32(tail), initialProtection: try u32(tail + 4), flags: try u32(tail + 12), sections: sections)
        let (segmentEnd, segmentOverflow) = segment.fileOffset.addingReportingOverflow(segment.fileSize)
        guard !segmentOverflow, segmentEnd <= UInt64(sliceSize) else {
            throw Diagnostic.codeSign(
                at: reader.base + at,
                "segment \(name) (\(segment.fileSize) bytes at offset \(segment.fileOffset)) runs past the end of the slice (\(sliceSize) bytes)"
            )
        }
        return segment
    }

    /// An `LC_CODE_SIGNATURE` at `at`, whose data must lie within the slice.
    private func codeSignature(at: Int) throws -> CodeSignatureLocation {
        let location = CodeSignatureLocation(dataOffset: try u32(at + 8), dataSize: try u32(at + 12))
        guard UInt64(location.dataOffset) + UInt64(location.dataSize) <= UInt64(sliceSize) else {
            throw Diagnostic.codeSign(
                at: reader.base + at,
                "LC_CODE_SIGNATURE (\(location.dataSize) bytes at offset \(location.dataOffset)) runs past the end of the slice (\(sliceSize) bytes)"
            )
        }
        return location
    }
}
