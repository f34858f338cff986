import SystemSupport

/// The Info.plist a linker embeds in a Mach-O slice (`-sectcreate __TEXT __info_plist`), as code
/// outside a bundle carries it: a loose dylib (Swift 1–4's `Frameworks/libswift*.dylib`) or a bare
/// tool. Its signature binds that section's bytes in special slot 1, where a bundle's executable
/// binds the bundle's Info.plist file; each slice has its own section.
extension MachOSlice {
    /// The segment and section the embedded Info.plist is in.
    public static let infoPlistSegment = "__TEXT"
    public static let infoPlistSectionName = "__info_plist"

    /// The first section named `name` of a segment named `segment`, or nil.
    public func section(_ name: String, inSegment segment: String) -> Section? {
        for candidate in segments where candidate.name == segment {
            if let found = candidate.sections.first(where: { $0.name == name }) { return found }
        }
        return nil
    }

    /// The `__TEXT,__info_plist` section, or nil when the slice has none.
    public var infoPlistSection: Section? { section(MachOSlice.infoPlistSectionName, inSegment: MachOSlice.infoPlistSegment) }

    /// Where `section`'s bytes are in the slice: nil for a zero-fill section, which has none in the
    /// file. Throws when they run past the end of the slice (``size``).
    public func fileRange(of section: Section) throws -> Range<Int>? {
        guard !section.isZeroFill else { return nil }
        let start = UInt64(section.fileOffset)
        let (end, overflow) = start.addingReportingOverflow(section.size)
        guard !overflow, end <= UInt64(size) else {
            throw Diagnostic.codeSign(
                .malformed,
                "the \(section.segmentName),\(section.name) section (\(section.size) bytes at offset \(start)) runs past the end of the slice (\(size) bytes)"
            )
        }
        return Int(start)..<Int(end)
    }

    /// The Info.plist embedded in the slice, read from `bytes` (the whole slice, from its first
    /// byte); nil when the slice has no `__TEXT,__info_plist` section or it is zero-fill. Throws when
    /// the section runs outside the slice or past the end of `bytes`.
    public func embeddedInfoPlist(in bytes: UnsafeRawBufferPointer) throws -> [UInt8]? {
        guard let section = infoPlistSection, let range = try fileRange(of: section) else { return nil }
        guard range.upperBound <= bytes.count else {
            throw Diagnostic.codeSign(
                .malformed,
                "the \(section.segmentName),\(section.name) section (\(range.count) bytes at offset \(range.lowerBound)) cannot be read: only \(bytes.count) bytes of the slice are at hand"
            )
        }
        return Array(bytes[range])
    }

    /// The embedded Info.plist read from ``bytes``, which must hold the whole slice (``hasAllBytes``,
    /// as a slice of ``MachOFile/init(bytes:)`` does); see ``embeddedInfoPlist(in:)``.
    public func embeddedInfoPlist() throws -> [UInt8]? {
        try bytes.withUnsafeBytes { try embeddedInfoPlist(in: $0) }
    }
}
