import Foundation
import SystemSupport

/// What every slice of one executable is signed with: its identity in the CodeDirectory, the hash
/// types, the flags, the special-slot content, and the signer.
public struct CodeSigningParameters: Sendable {
    /// The code's identifier (a bundle's id, or a dylib's name).
    public var identifier: String
    /// The team id written in the CodeDirectory (the signing certificate's OU), or nil when ad hoc.
    public var teamID: String?
    /// The hash types, the primary CodeDirectory's first: `[.sha256]`, or `[.sha1, .sha256]` for code
    /// that runs below iOS 11 (whose kernel reads only the first).
    public var hashTypes: [HashType]
    /// ``CodeDirectory/ExecSegmentFlag`` bits: `mainBinary` for an app's or extension's executable,
    /// with `allowUnsigned` where get-task-allow is true.
    public var execSegmentFlags: UInt64
    /// Info.plist, CodeResources, the requirement set and the entitlements blobs the directories bind.
    /// Without an Info.plist (code outside a bundle), slot 1 binds each slice's own embedded one, its
    /// `__TEXT,__info_plist` section, when it has one, as Apple's signer does.
    public var specialSlots: SpecialSlotContents
    /// The signer, or nil for an ad-hoc signature (flag `adhoc`, an empty CMS blob).
    public var identity: SigningIdentity?
    /// The CMS signing time.
    public var signingTime: Date

    public init(
        identifier: String, teamID: String?, hashTypes: [HashType], execSegmentFlags: UInt64, specialSlots: SpecialSlotContents,
        identity: SigningIdentity?, signingTime: Date
    ) {
        self.identifier = identifier
        self.teamID = teamID
        self.hashTypes = hashTypes
        self.execSegmentFlags = execSegmentFlags
        self.specialSlots = specialSlots
        self.identity = identity
        self.signingTime = signingTime
    }

    /// The CodeDirectory version written: 0x20400, with the executable segment.
    public static let version = CodeDirectory.Version.execSegment
    /// Pages of 4 KiB.
    public static let pageSizeLog2: UInt8 = 12
}

// @unchecked Sendable: the identity's key is only read by OpenSSL while signing, on the caller's thread.
extension SigningIdentity: @unchecked Sendable {}

/// One slice being signed: its layout, planned before any page is hashed so the code can be
/// written while it is hashed.
struct SlicePlan {
    let slice: MachOSlice
    /// The slice's original bytes.
    let original: UnsafeRawBufferPointer
    let layout: SliceSignatureLayout
    let parameters: CodeSigningParameters
}

/// Signs one Mach-O slice as Apple's signer does: plans where the signature goes (``plan``), then
/// hashes every 4 KiB page of the new code once per hash type on all cores while writing it out
/// (``writeCode``), then builds the CodeDirectories, the CMS over the primary one, and the
/// embedded signature (``signature``).
enum SliceSigner {
    /// Pages hashed (and written) per job: 1 MiB.
    static let pagesPerJob = 256
    /// Room left in the reservation beyond the estimate (an ECDSA signature's length varies).
    static let slack = 1_024

    /// Plans the signature of `slice`: the reservation is the size of the signature with every
    /// hash zero (the sizes do not depend on the hashes) and a CMS over those directories, plus slack.
    static func plan(slice: MachOSlice, original: UnsafeRawBufferPointer, parameters: CodeSigningParameters) throws -> SlicePlan {
        guard !parameters.hashTypes.isEmpty else { throw Diagnostic.codeSign("no hash type to sign with", location: "slice \(slice.cpu)") }
        let parameters = try bindingEmbeddedInfoPlist(parameters, slice: slice, original: original)
        let probe = try SliceSignatureLayout(slice: slice, original: original, reserved: 0)
        let pageSize = 1 << Int(CodeSigningParameters.pageSizeLog2)
        let pageCount = (probe.codeLimit + pageSize - 1) / pageSize
        let placeholders = parameters.hashTypes.map { type in
            directory(
                type: type, parameters: parameters, layout: probe,
                pages: Array(repeating: [UInt8](repeating: 0, count: type.size), count: pageCount))
        }
        let estimate = try blobs(directories: placeholders, parameters: parameters).reduce(12) { $0 + 8 + $1.bytes.count }
        let reserved = (estimate + slack + 15) & ~15
        let layout = try SliceSignatureLayout(slice: slice, original: original, reserved: reserved)
        return SlicePlan(slice: slice, original: original, layout: layout, parameters: parameters)
    }

    /// Writes the code of the new slice (everything below the code limit) to `fd` at `offset`,
    /// hashing each page as it goes; `release` lets go of each original range once written.
    /// Returns the page hashes, one list per hash type.
    static func writeCode(_ plan: SlicePlan, to fd: Int32, at offset: Int64, release: @escaping @Sendable (Range<Int>) -> Void) throws
        -> [[[UInt8]]]
    {
        let layout = plan.layout, types = plan.parameters.hashTypes
        let pageSize = 1 << Int(CodeSigningParameters.pageSizeLog2)
        let pageCount = (layout.codeLimit + pageSize - 1) / pageSize
        let results = Locked<[Int: [[[UInt8]]]]>([:])
        nonisolated(unsafe) let source = plan.original
        let pool = WorkerPool(label: "adhocbuild.sign-pages", capacity: 2 * Processors.usable)
        for first in stride(from: 0, to: pageCount, by: pagesPerJob) {
            pool.submit {
                let last = min(first + pagesPerJob, pageCount)
                let range = first * pageSize..<min(last * pageSize, layout.codeLimit)
                var hashes = types.map { _ in [[UInt8]]() }
                let streams = types.map { DigestStream($0) }
                let failure = layout.withCode(range, original: source) { bytes -> Int32 in
                    for page in stride(from: 0, to: bytes.count, by: pageSize) {
                        let piece = UnsafeRawBufferPointer(rebasing: bytes[page..<min(page + pageSize, bytes.count)])
                        for (index, stream) in streams.enumerated() { hashes[index].append(stream.digest(of: piece)) }
                    }
                    return positionedWriteAll(fd, bytes, at: offset + Int64(range.lowerBound))
                }
                guard failure == 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be written: \(SystemError.describe(failure))") }
                release(range)
                results.withLock { $0[first] = hashes }
            }
        }
        try pool.wait()
        let chunks = results.value
        return types.indices.map { index in
            stride(from: 0, to: pageCount, by: pagesPerJob).flatMap { chunks[$0]![index] }
        }
    }

    /// The embedded signature over the page hashes `pages`, padded with zeros to the reservation,
    /// and the CodeDirectories it holds.
    static func signature(_ plan: SlicePlan, pages: [[[UInt8]]]) throws -> (bytes: [UInt8], directories: [CodeDirectory]) {
        let parameters = try bindingEmbeddedInfoPlist(plan.parameters, slice: plan.slice, original: plan.original)
        let directories = zip(parameters.hashTypes, pages).map { type, hashes in
            directory(type: type, parameters: parameters, layout: plan.layout, pages: hashes)
        }
        var bytes = SuperBlob(magic: BlobMagic.embeddedSignature, entries: try blobs(directories: directories, parameters: parameters))
            .bytes()
        guard bytes.count <= plan.layout.reserved else {
            throw Diagnostic.codeSign(
                "the signature (\(bytes.count) bytes) outgrew the \(plan.layout.reserved) bytes reserved for it",
                location: "slice \(plan.slice.cpu)")
        }
        bytes += [UInt8](repeating: 0, count: plan.layout.reserved - bytes.count)
        return (bytes, directories)
    }

    /// `parameters` with special slot 1 holding the Info.plist embedded in `slice` (read from
    /// `original`, the slice's bytes) when they give none: code outside a bundle binds its own.
    static func bindingEmbeddedInfoPlist(_ parameters: CodeSigningParameters, slice: MachOSlice, original: UnsafeRawBufferPointer)
        throws -> CodeSigningParameters
    {
        guard parameters.specialSlots.infoPlist == nil else { return parameters }
        var bound = parameters
        bound.specialSlots.infoPlist = try within("slice \(slice.cpu)", only: CodeSignProblem.self) {
            try slice.embeddedInfoPlist(in: original)
        }
        return bound
    }

    /// The CodeDirectory of `type` over `pages`, with the parameters' fields and special slots.
    static func directory(type: HashType, parameters: CodeSigningParameters, layout: SliceSignatureLayout, pages: [[UInt8]])
        -> CodeDirectory
    {
        var fields = CodeDirectoryParameters(
            identifier: parameters.identifier, teamID: parameters.teamID, version: CodeSigningParameters.version,
            flags: parameters.identity == nil ? CodeDirectory.Flag.adhoc : 0, hashType: type,
            pageSizeLog2: CodeSigningParameters.pageSizeLog2, codeLimit: UInt64(layout.codeLimit),
            execSegmentBase: layout.executableSegment.base, execSegmentLimit: layout.executableSegment.limit,
            execSegmentFlags: parameters.execSegmentFlags)
        if parameters.identity == nil { fields.teamID = nil }
        return CodeDirectoryBuilder.build(pageHashes: pages, specialSlots: parameters.specialSlots, parameters: fields)
    }

    /// The embedded signature's blobs in Apple's order: the primary CodeDirectory, the requirements,
    /// the entitlements (XML, then DER), the alternate CodeDirectories, then the CMS.
    static func blobs(directories: [CodeDirectory], parameters: CodeSigningParameters) throws -> [SuperBlob.Entry] {
        let encoded = directories.map { $0.bytes() }
        var entries = [SuperBlob.Entry(type: SignatureSlot.codeDirectory, bytes: encoded[0])]
        let slots = parameters.specialSlots
        entries.append(SuperBlob.Entry(type: SignatureSlot.requirements, bytes: slots.requirements ?? RequirementSet([]).bytes()))
        if let xml = slots.entitlements { entries.append(SuperBlob.Entry(type: SignatureSlot.entitlements, bytes: xml)) }
        if let der = slots.derEntitlements { entries.append(SuperBlob.Entry(type: SignatureSlot.derEntitlements, bytes: der)) }
        for (index, bytes) in encoded.dropFirst().enumerated() {
            entries.append(SuperBlob.Entry(type: SignatureSlot.alternateCodeDirectories + UInt32(index), bytes: bytes))
        }
        let cms = try parameters.identity.map {
            try CMSSigner.sign(codeDirectories: encoded, identity: $0, signingTime: parameters.signingTime)
        }
        entries.append(SuperBlob.Entry(type: SignatureSlot.signature, bytes: CMSBlob(cms: cms ?? []).bytes()))
        return entries
    }
}
