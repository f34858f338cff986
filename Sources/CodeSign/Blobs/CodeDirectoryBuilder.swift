import SystemSupport

/// Builds a ``CodeDirectory`` from a Mach-O slice's bytes, the special-slot content and the parameters,
/// as Apple's signer does: one hash per page of the code up to the code limit (the last page shorter),
/// the special slots' hashes up to the highest one used (zeros for empty slots), and the header fields
/// the parameters give.
public enum CodeDirectoryBuilder {
    /// The directory over `code` (the slice's bytes; only `code[0..<parameters.codeLimit]` is hashed).
    ///
    /// Throws a one-line error when the code limit lies past the end of `code`, or does not fit the
    /// 32-bit field of a version before 0x20300.
    public static func build(code: [UInt8], specialSlots: SpecialSlotContents, parameters: CodeDirectoryParameters) throws
        -> CodeDirectory
    {
        guard parameters.codeLimit <= UInt64(code.count) else {
            throw Diagnostic.codeSign(
                "code limit \(parameters.codeLimit) lies past the end of the code (\(code.count) bytes)", location: "CodeDirectory")
        }
        guard parameters.codeLimit <= UInt64(UInt32.max) || parameters.version >= CodeDirectory.Version.codeLimit64 else {
            throw Diagnostic.codeSign(
                "code limit \(parameters.codeLimit) needs CodeDirectory version 0x20300 or later (have 0x\(String(parameters.version, radix: 16)))",
                location: "CodeDirectory")
        }
        let pageSize = parameters.pageSizeLog2 == 0 ? 0 : 1 << Int(parameters.pageSizeLog2)
        let pages = CodeHashing.pageHashes(code, limit: Int(parameters.codeLimit), pageSize: pageSize, type: parameters.hashType)
        return build(pageHashes: pages, specialSlots: specialSlots, parameters: parameters)
    }

    /// The directory with the code-page hashes `pageHashes` already computed (by the signer, in parallel).
    public static func build(pageHashes pages: [[UInt8]], specialSlots: SpecialSlotContents, parameters: CodeDirectoryParameters)
        -> CodeDirectory
    {
        let type = parameters.hashType
        let special = (0..<specialSlots.slotCount).map { index -> [UInt8] in
            specialSlots.content(index + 1).map { Digest.hash(type, $0) } ?? [UInt8](repeating: 0, count: type.size)
        }
        var directory = CodeDirectory(
            version: parameters.version, flags: parameters.flags, hashType: type, identifier: parameters.identifier,
            teamID: parameters.teamID, codeLimit: parameters.codeLimit, pageSizeLog2: parameters.pageSizeLog2,
            platform: parameters.platform, specialSlots: special, codeSlots: pages)
        if parameters.version >= CodeDirectory.Version.execSegment {
            directory.execSegmentBase = parameters.execSegmentBase
            directory.execSegmentLimit = parameters.execSegmentLimit
            directory.execSegmentFlags = parameters.execSegmentFlags
        }
        if parameters.version >= CodeDirectory.Version.runtime { directory.runtime = parameters.runtime }
        return directory
    }
}
