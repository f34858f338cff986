import Foundation
import PlistKit
import SystemSupport

/// The files outside the executable that its CodeDirectory's special slots bind, as the code has them.
///
/// Slot 1 of a bundle's executable binds the bundle's Info.plist file; code that is not a bundle (a
/// loose dylib, a bare tool) binds the Info.plist embedded in each of its slices instead
/// (``MachOSlice/embeddedInfoPlist(in:)``), which ``ExecutableReport`` reads per slice.
struct SpecialSlotFiles {
    /// The bundle's Info.plist bytes (nil for a loose dylib or when missing).
    var infoPlist: Data?
    /// The bundle's `_CodeSignature/CodeResources` bytes (nil for a loose dylib or when missing).
    var codeResources: Data?
    /// Whether the code is a bundle (whose Info.plist and CodeResources a signature must bind).
    var isBundle: Bool
}

/// What special slot 1 of one slice binds.
enum InfoPlistBinding {
    /// The bundle's Info.plist file (nil when it is missing).
    case bundleFile(Data?)
    /// The Info.plist embedded in the slice's `__TEXT,__info_plist` section (nil when it has none).
    case embedded([UInt8]?)
    /// The embedded section cannot be read (it runs outside the slice): reported once, not compared.
    case unreadable

    /// Slot 1 of `slice`: the bundle's file for code in a bundle, else the slice's own section, read
    /// from `source`; the error when that section cannot be read.
    static func of(_ slice: MachOSlice, source: SliceBytes, files: SpecialSlotFiles) -> (InfoPlistBinding, error: String?) {
        guard !files.isBundle else { return (.bundleFile(files.infoPlist), nil) }
        let read = source.withBytes { bytes in Result { try slice.embeddedInfoPlist(in: bytes) } }
        switch read {
        case .success(let bytes): return (.embedded(bytes), nil)
        case .failure(let error as Diagnostic): return (.unreadable, error.message)
        case .failure(let error): return (.unreadable, "\(error)")
        }
    }
}

/// What one executable's signature says and what breaks it: every code page of every slice against
/// the slice's strongest CodeDirectory, every CodeDirectory's page layout, and the special slots
/// (Info.plist, requirements, CodeResources, entitlements).
struct ExecutableReport {
    var status: CodeSignatureStatus
    /// The first signed slice's signature.
    var primarySignature: EmbeddedSignature?
    /// Every slice's signature with the slice's architecture, in file order.
    var signatures: [(architecture: String, signature: EmbeddedSignature)] = []
    var codeDirectories: [CodeDirectorySummary]
    /// Problems as (kind, file relative to the bundle, message).
    var problems: [SealFinding]

    /// Checks `machO` (the executable named `executable`, mapped in `map` when its slices do not hold
    /// their bytes); page hashes run on `pool`, in place.
    init(machO: MachOFile, map: MappedExecutable? = nil, executable: String, files: SpecialSlotFiles, pool: WorkerPool) {
        status = .unsigned
        primarySignature = nil
        codeDirectories = []
        problems = []
        var pageChecks: [(slice: String, pages: Int, pageSize: Int, mismatches: Locked<[Int]>)] = []
        var signedSlices = 0, adhocSlices = 0
        for slice in machO.slices {
            let architecture = "\(slice.cpu)"
            let place = machO.slices.count > 1 ? "slice \(architecture): " : ""
            let signature: EmbeddedSignature
            do {
                guard let read = try slice.embeddedSignature() else {
                    if machO.slices.count > 1 { problems.append((.signatureMissing, executable, "\(place)not signed")) }
                    continue
                }
                signature = read
            } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
                problems.append((.malformed, executable, "the signature cannot be read: \(error.description)"))
                status = .unreadable
                continue
            } catch {
                problems.append((.malformed, executable, "the signature cannot be read: \(error)"))
                status = .unreadable
                continue
            }
            guard let primary = signature.codeDirectory else {
                problems.append((.malformed, executable, "\(place)the signature has no CodeDirectory"))
                status = .unreadable
                continue
            }
            signedSlices += 1
            if primarySignature == nil { primarySignature = signature }
            signatures.append((architecture, signature))
            if signature.signature?.isEmpty ?? true || primary.flags & CodeDirectory.Flag.adhoc != 0 { adhocSlices += 1 }
            if let location = slice.codeSignature, primary.effectiveCodeLimit != UInt64(location.dataOffset) {
                problems.append(
                    (
                        .codeLayoutMismatch, executable,
                        "\(place)the CodeDirectory covers \(primary.effectiveCodeLimit) bytes, but the signature starts at byte \(location.dataOffset)"
                    ))
            }
            let directories = signature.codeDirectories
            let mismatches = directories.map { _ in Locked<[Int]>([]) }
            let source = ExecutableReport.source(slice, map)
            let (infoPlist, infoPlistError) = InfoPlistBinding.of(slice, source: source, files: files)
            if let infoPlistError { problems.append((.malformed, executable, "\(place)Info.plist: \(infoPlistError)")) }
            let layouts = CodePageVerifier(slice: slice, source: source, directories: directories).submit(to: pool, mismatches: mismatches)
            for (index, directory) in directories.enumerated() {
                codeDirectories.append(
                    CodeDirectorySummary(
                        architecture: architecture, hashType: directory.hashType, version: directory.version, flags: directory.flags,
                        cdhash: directory.cdhash(), isPrimary: index == 0 && signature.codeDirectory != nil))
                if directory.identifier != primary.identifier {
                    problems.append(
                        (
                            .identifierMismatch, executable,
                            "\(place)the \(directory.hashType.displayName) CodeDirectory names '\(directory.identifier)', the primary one '\(primary.identifier)'"
                        ))
                }
                if let layout = layouts[index] {
                    problems.append((.codeLayoutMismatch, executable, "\(place)\(layout)"))
                } else {
                    pageChecks.append((place, directory.codeSlotCount, directory.pageSize, mismatches[index]))
                }
                problems += ExecutableReport.specialSlotProblems(
                    directory, signature, executable: executable, files: files, infoPlist: infoPlist, place: place)
            }
        }
        if signedSlices > 0 { status = adhocSlices > 0 ? .adhoc : .signed }
        if signedSlices == 0 && status == .unsigned { problems.append((.signatureMissing, executable, "code object is not signed at all")) }
        // The pool is the caller's: the page jobs finish when it waits. The messages are built then.
        self.pageChecks = pageChecks
    }

    private var pageChecks: [(slice: String, pages: Int, pageSize: Int, mismatches: Locked<[Int]>)]

    /// Where `slice`'s bytes are: its own array, or its range of `map`.
    static func source(_ slice: MachOSlice, _ map: MappedExecutable?) -> SliceBytes {
        guard !slice.hasAllBytes, let map else { return .array(slice.bytes) }
        let offset = Int(clamping: slice.fileOffset)
        guard offset <= map.bytes.count, slice.size <= map.bytes.count - offset else { return .array(slice.bytes) }
        return .mapped(map, offset: offset, count: slice.size)
    }

    /// The page problems, once the pool has finished the jobs; each distinct message once.
    mutating func collectPageProblems(executable: String) {
        var seen = Set<String>()
        for check in pageChecks {
            let pages = check.mismatches.value
            guard !pages.isEmpty else { continue }
            let message = check.slice + CodePageVerifier.message(pages: pages, of: check.pages, pageSize: check.pageSize)
            if seen.insert(message).inserted { problems.append((.pageModified, executable, message)) }
        }
        pageChecks = []
    }

    /// The special slots of `directory` against what they bind; one problem per slot. Slot 1 binds
    /// `infoPlist`: a bundle's file is named `Info.plist`, an embedded one `<executable>: Info.plist:`.
    static func specialSlotProblems(
        _ directory: CodeDirectory, _ signature: EmbeddedSignature, executable: String, files: SpecialSlotFiles,
        infoPlist: InfoPlistBinding, place: String
    ) -> [SealFinding] {
        let blob = { (slot: UInt32) in signature.blob(slot).map { Data($0) } }
        var slots: [(slot: Int, file: String, what: String, content: Data?, required: Bool)] = [
            (2, executable, "requirements: ", blob(SignatureSlot.requirements), false),
            (3, "_CodeSignature/CodeResources", "", files.codeResources, files.isBundle),
            (5, executable, "entitlements: ", blob(SignatureSlot.entitlements), true),
            (7, executable, "DER entitlements: ", blob(SignatureSlot.derEntitlements), true)
        ]
        switch infoPlist {
        case .bundleFile(let data): slots.insert((1, "Info.plist", "", data, files.isBundle), at: 0)
        // Apple's signer always binds the section of code outside a bundle when there is one.
        case .embedded(let bytes): slots.insert((1, executable, "Info.plist: ", bytes.map { Data($0) }, true), at: 0)
        case .unreadable: break
        }
        var problems: [SealFinding] = []
        let type = directory.hashType
        for (slot, file, what, content, required) in slots {
            let stored = directory.specialSlot(slot).flatMap { hash in hash.allSatisfy { $0 == 0 } ? nil : hash }
            switch (stored, content) {
            case (nil, nil):
                continue
            case (nil, _?):
                if required {
                    problems.append((.specialSlotUnsealed, file, "\(place)\(what)not sealed by the \(type.displayName) CodeDirectory"))
                }
            case (let sealed?, nil):
                problems.append((.specialSlotMissing, file, "\(place)\(what)missing (sealed \(type.displayName) \(sealed.shortHex))"))
            case (let sealed?, let bytes?):
                let now = Digest.hash(type, bytes)
                if now != sealed {
                    problems.append(
                        (
                            .specialSlotModified, file,
                            "\(place)\(what)modified (sealed \(type.displayName) \(sealed.shortHex), now \(now.shortHex))"
                        ))
                }
            }
        }
        return problems
    }
}
