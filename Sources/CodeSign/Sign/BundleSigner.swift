import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// Signs an app bundle folder in place, inside out as Apple's signer does: loose dylibs and
/// frameworks first, then extensions, watch apps and app clips (each with what it nests), then the
/// app. Each bundle gets its profile as `embedded.mobileprovision`, its entitlements (given, derived
/// from the profile, or kept from its old signature when signing ad hoc), a CodeResources that seals
/// its files one by one after the code nested in it is signed, and a signature on every slice of its
/// executable binding Info.plist, the designated requirement, CodeResources and the entitlements.
///
/// The folder is changed in place: callers that must leave their input as it was sign a copy and
/// rename it over the input when this returns (``AppSigning`` does).
public enum BundleSigner {
    /// Signs the bundle at `path` and everything nested in it. Errors are one line naming the file.
    public static func sign(bundle path: String, options: BundleSigningOptions) throws -> BundleSigningReport {
        try sign(bundle: path, options: options, copy: CopyContext())
    }

    /// ``sign(bundle:options:)`` of a folder copied by ``HashingCopy``: the files unchanged since
    /// are not read again.
    public static func sign(bundle path: String, options: BundleSigningOptions, digests: DigestCache) throws -> BundleSigningReport {
        try sign(bundle: path, options: options, copy: CopyContext(digests: digests))
    }

    /// Signs a copy of the bundle `source` made at `destination` (which must not exist), reading each
    /// byte of the original once: resources are hashed as they are copied, executables are signed
    /// from the original straight into the copy. The original is not changed.
    ///
    /// Everything that can refuse is checked on the original before anything is written; then the
    /// code of every executable is written into the copy and its pages hashed while the other files
    /// are copied, as none of that depends on the CodeResources sealing them, and each executable's
    /// signature is added once its bundle's CodeResources is written.
    public static func sign(copying source: String, to destination: String, options: BundleSigningOptions) throws
        -> BundleSigningReport
    {
        try checkLinks(source)
        let items = CodeTree.insideOut(bundle: source)
        try checkProfilesNameBundles(items, options: options)
        var context = CopyContext()
        var signings: [MachOSigning] = []
        // The new executables are written under temporary names beside the copy, not in it, so no
        // scan of a bundle meets them before they are renamed into place.
        let beside = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        for item in items {
            let copied = destination + item.path.dropFirst(source.count)
            let executable: String
            let parameters: (MachOSlice) -> CodeSigningParameters
            if item.kind == .dylib {
                let header = try ExecutableHeader(path: item.path, limits: options.limits)
                let identifier = dylibIdentifier(item.path, header: header)
                let slots = SpecialSlotContents(requirements: try requirements(identifier, options))
                parameters = signingParameters(header: header, identifier: identifier, slots: slots, getTaskAllow: false, options: options)
                executable = item.path
            } else {
                var prepared = try prepare(
                    item.path, kind: item.kind, isOutermost: item.path == source, options: options, copy: CopyContext())
                executable = prepared.executablePath
                prepared.executablePath = copied + "/" + prepared.executableName
                context.prepared[copied] = prepared
                // The CodeResources slot's content is not known yet, only that it is there.
                let slots = try bundleSlots(prepared, codeResources: [], options: options)
                parameters = signingParameters(
                    header: prepared.header, identifier: prepared.identifier, slots: slots, getTaskAllow: getTaskAllow(prepared),
                    options: options)
            }
            let target = destination + executable.dropFirst(source.count)
            context.originals[target] = executable
            let signing = try MachOSigning(file: executable, to: target, temporaryFolder: beside, parameters: parameters)
            context.signings[target] = signing
            signings.append(signing)
        }
        let skipping = Set(context.originals.keys.map { String($0.dropFirst(destination.count + 1)) })
        let pending = signings
        // A thread of its own: it waits on the pages' jobs, and a dispatch worker waiting so would
        // hold one of the few the copy's and the pages' jobs share.
        let written = BackgroundResult(thread: nil) { for signing in pending { try signing.writeCode() } }
        do {
            context.digests = try HashingCopy.copy(source, to: destination, skipping: skipping)
        } catch {
            _ = try? written.get()
            throw error
        }
        try written.get()
        let copiedItems = items.map { CodeTree.Item(path: destination + $0.path.dropFirst(source.count), kind: $0.kind) }
        return try sign(bundle: destination, options: options, copy: context, items: copiedItems)
    }

    /// Where the executables of a copy being signed are read from, and the digests of its other files.
    struct CopyContext {
        /// The original of each executable the copy left out, by its path in the copy.
        var originals: [String: String] = [:]
        var digests: DigestCache?
        /// Each bundle of the copy as prepared from the original, by its path in the copy.
        var prepared: [String: PreparedBundle] = [:]
        /// The executables whose code is already written, by their path in the copy.
        var signings: [String: MachOSigning] = [:]

        func original(_ path: String) -> String { originals[path] ?? path }
    }

    /// A profile given for a bundle id no bundle of the app has is a mistake (a typo, or the id before
    /// an environment changed it): refused, naming the profile and the ids there are.
    static func checkProfilesNameBundles(_ items: [CodeTree.Item], options: BundleSigningOptions) throws {
        guard !options.profiles.isEmpty else { return }
        let identifiers = items.filter { $0.kind != .dylib }.compactMap { item in
            (try? PropertyList(data: try FileIO.read(item.path + "/Info.plist"), limits: options.limits))?.value["CFBundleIdentifier"]?
                .stringValue
        }
        for (identifier, profile) in options.profiles.sorted(by: { $0.key < $1.key }) where !identifiers.contains(identifier) {
            throw Diagnostic.codeSign(
                .profileMismatch,
                "is given for \(identifier), which no bundle of the app has (its bundle ids: \(identifiers.sorted().joined(separator: ", ")))",
                file: profile.path)
        }
    }

    /// The executable an Info.plist names, when it can be read.
    static func bundleExecutable(_ bundle: String, limits: PlistLimits) throws -> String? {
        try PropertyList(data: try FileIO.read(bundle + "/Info.plist"), limits: limits).value["CFBundleExecutable"]?.stringValue
    }

    /// Signs the bundle at `path` and its nested code; `items` are that code when already found
    /// (and its profiles checked).
    static func sign(bundle path: String, options: BundleSigningOptions, copy: CopyContext, items found: [CodeTree.Item]? = nil) throws
        -> BundleSigningReport
    {
        if found == nil { try checkLinks(path) }
        let items = found ?? CodeTree.insideOut(bundle: path)
        if found == nil { try checkProfilesNameBundles(items, options: options) }
        var report = BundleSigningReport(
            items: [], signer: options.identity?.certificate.displayName,
            teamID: options.identity.flatMap { $0.certificate.organizationalUnit })
        for item in items {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let relative = item.path == path ? name : name + "/" + item.path.dropFirst(path.count + 1)
            let signed =
                item.kind == .dylib
                ? try signDylib(item.path, options: options, copy: copy)
                : try signBundleCode(item.path, kind: item.kind, isOutermost: item.path == path, options: options, copy: copy)
            report.items.append(
                BundleSigningReport.Item(
                    path: relative, identifier: signed.identifier, cdhash: signed.executable.cdhash, profile: signed.profile))
        }
        return report
    }

    /// A dylib on its own: its identifier is the one it was signed with, else its name without `.dylib`.
    static func signDylib(_ path: String, options: BundleSigningOptions, copy: CopyContext) throws -> (
        identifier: String, executable: SignedExecutable, profile: String?
    ) {
        let header = try ExecutableHeader(path: copy.original(path), limits: options.limits)
        let identifier = dylibIdentifier(path, header: header)
        let slots = SpecialSlotContents(requirements: try requirements(identifier, options))
        let executable = try sign(
            copy.original(path), to: path, header: header, identifier: identifier, slots: slots, getTaskAllow: false, options: options,
            copy: copy)
        return (identifier, executable, nil)
    }

    /// A dylib's identifier: the one it was signed with, else its name without `.dylib`.
    static func dylibIdentifier(_ path: String, header: ExecutableHeader) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        return header.identifier ?? (name.hasSuffix(".dylib") ? String(name.dropLast(6)) : name)
    }

    /// What signing a bundle needs, read and checked before anything is written.
    struct PreparedBundle {
        var identifier: String
        var infoBytes: Data
        var executableName: String
        var executablePath: String
        var header: ExecutableHeader
        /// The profile given for it, to embed (nil: keep what it has).
        var givenProfile: ProfileFile?
        var entitlements: PlistDictionary?
    }

    /// Reads a bundle's Info.plist and executable header, picks its profile and entitlements, and runs
    /// the preflight checks: everything that can refuse, before any file is written.
    static func prepare(
        _ bundle: String, kind: CodeItemKind, isOutermost: Bool, options: BundleSigningOptions, copy: CopyContext
    ) throws -> PreparedBundle {
        let infoPath = bundle + "/Info.plist"
        guard FileManager.default.fileExists(atPath: infoPath) else {
            if FileManager.default.fileExists(atPath: bundle + "/Versions/Current") {
                throw Diagnostic.codeSign(
                    .bundleInvalid,
                    "is a versioned (macOS-style) framework; iOS frameworks are flat and only those are signed", file: bundle)
            }
            throw Diagnostic.codeSign(.bundleInvalid, "has no Info.plist", file: bundle)
        }
        let infoBytes = try FileIO.read(infoPath)
        let info: PlistDictionary
        do {
            guard let dictionary = try PropertyList(data: infoBytes, limits: options.limits).value.dictionaryValue else {
                throw Diagnostic.codeSign(.bundleInvalid, "is not a dictionary", file: infoPath)
            }
            info = dictionary
        } catch let error as Diagnostic where error.is(PlistProblem.self) {
            throw Diagnostic.codeSign(.bundleInvalid, error.description, file: infoPath)
        }
        guard let identifier = info["CFBundleIdentifier"]?.stringValue, !identifier.isEmpty else {
            throw Diagnostic.codeSign(.bundleInvalid, "has no CFBundleIdentifier", file: infoPath)
        }
        guard let executableName = info["CFBundleExecutable"]?.stringValue, !executableName.isEmpty, !executableName.contains("/") else {
            throw Diagnostic.codeSign(.bundleInvalid, "has no CFBundleExecutable naming a file in the bundle", file: infoPath)
        }
        let executablePath = bundle + "/" + executableName
        let header = try ExecutableHeader(path: copy.original(executablePath), limits: options.limits)
        var prepared = PreparedBundle(
            identifier: identifier, infoBytes: infoBytes, executableName: executableName, executablePath: executablePath,
            header: header, givenProfile: nil, entitlements: nil)
        guard kind == .app || kind == .appex else {
            if let identity = options.identity {
                try SigningPreflight.check(
                    identity: identity, profile: nil, profilePath: nil, bundleIdentifier: identifier, bundlePath: bundle,
                    entitlements: nil, slices: header.slices, executablePath: copy.original(executablePath), now: options.now)
            }
            return prepared
        }
        let profilePath = bundle + "/embedded.mobileprovision"
        prepared.givenProfile = options.profile(for: identifier, isOutermost: isOutermost)
        let profile: ProfileFile?
        if let given = prepared.givenProfile {
            profile = given
        } else if FileManager.default.fileExists(atPath: profilePath) {
            profile = try ProfileFile(path: profilePath, limits: options.limits)
        } else {
            profile = nil
        }
        if options.identity != nil, profile == nil {
            throw Diagnostic.codeSign(
                .profileMismatch,
                "has no provisioning profile for \(identifier); give one as \(isOutermost ? "FILE" : "\(identifier)=FILE") "
                    + "(codesign sign --profile, release --sign-profile)", file: bundle)
        }
        prepared.entitlements = try BundleSigner.entitlements(
            identifier: identifier, isOutermost: isOutermost, profile: profile, header: header, options: options)
        if let identity = options.identity, let profile {
            do {
                try SigningPreflight.check(
                    identity: identity, profile: profile.profile, profilePath: profile.path, bundleIdentifier: identifier,
                    bundlePath: bundle, entitlements: isOutermost ? options.entitlements : nil,
                    entitlementsPath: isOutermost && options.entitlements != nil ? options.entitlementsFile : nil, slices: header.slices,
                    executablePath: copy.original(executablePath), now: options.now)
            } catch var error as Diagnostic
                where error.is(CodeSignProblem.self) && prepared.givenProfile == nil && error.file == profile.path
            {
                // The bundle's own old profile was checked because none was given for it: say so, and how to give one.
                error.hint =
                    "no profile was given for \(identifier), so the one it holds was checked; give one as "
                    + "\(isOutermost ? "FILE" : "\(identifier)=FILE") (codesign sign --profile, release --sign-profile)"
                throw error
            }
        }
        return prepared
    }

    /// Refuses a bundle holding a symbolic link that is absolute or leads outside it, by the rule
    /// packaging applies (``BundleLinks``): signing would seal it and a release publish it.
    static func checkLinks(_ bundle: String) throws {
        do { try BundleLinks.checkInside(bundle: bundle) } catch let error as Diagnostic where error.is(IPAProblem.self) {
            throw Diagnostic.codeSign(.bundleInvalid, error.message + "; adhocbuild does not sign it", file: error.file)
        }
    }

    /// Runs every check signing the bundle at `path` would run (profiles, identity, entitlements,
    /// binaries), writing nothing: a change that will be signed afterwards checks first.
    public static func check(bundle path: String, options: BundleSigningOptions) throws {
        try checkLinks(path)
        for item in CodeTree.insideOut(bundle: path) {
            if item.kind == .dylib {
                let header = try ExecutableHeader(path: item.path, limits: options.limits)
                if let identity = options.identity {
                    try SigningPreflight.check(
                        identity: identity, profile: nil, profilePath: nil, bundleIdentifier: header.identifier ?? "",
                        bundlePath: item.path,
                        entitlements: nil, slices: header.slices, executablePath: item.path, now: options.now)
                }
            } else {
                _ = try prepare(item.path, kind: item.kind, isOutermost: item.path == path, options: options, copy: CopyContext())
            }
        }
    }

    /// A bundle: profile, entitlements, CodeResources, then the executable.
    static func signBundleCode(
        _ bundle: String, kind: CodeItemKind, isOutermost: Bool, options: BundleSigningOptions, copy: CopyContext
    ) throws -> (
        identifier: String, executable: SignedExecutable, profile: String?
    ) {
        let prepared = try copy.prepared[bundle] ?? prepare(bundle, kind: kind, isOutermost: isOutermost, options: options, copy: copy)
        let (identifier, executableName, executablePath, header) = (
            prepared.identifier, prepared.executableName, prepared.executablePath, prepared.header
        )
        var embeddedProfile: String?
        if let given = prepared.givenProfile {
            try FileIO.writeAtomically(given.bytes, to: bundle + "/embedded.mobileprovision")
            embeddedProfile = given.path
        }

        let hashTypes = header.hashTypes
        let resources = try BundleResource.scan(folder: bundle, cache: copy.digests, excluding: [executableName])
        let codeResources = try CodeResourcesBuilder(generation: options.generation, hashTypes: hashTypes).build(
            resources, executable: executableName
        ).data()
        try FileIO.createFolder(bundle + "/_CodeSignature")
        try FileIO.writeAtomically(codeResources, to: bundle + "/_CodeSignature/CodeResources")

        let slots = try bundleSlots(prepared, codeResources: [UInt8](codeResources), options: options)
        let executable = try sign(
            copy.original(executablePath), to: executablePath, header: header, identifier: identifier, slots: slots,
            getTaskAllow: getTaskAllow(prepared), options: options, copy: copy)
        return (identifier, executable, embeddedProfile)
    }

    /// What a bundle's CodeDirectories bind: its Info.plist, its requirements, `codeResources`, and
    /// its entitlements.
    static func bundleSlots(_ prepared: PreparedBundle, codeResources: [UInt8], options: BundleSigningOptions) throws
        -> SpecialSlotContents
    {
        var slots = SpecialSlotContents(
            infoPlist: [UInt8](prepared.infoBytes), requirements: try requirements(prepared.identifier, options),
            codeResources: codeResources)
        if let entitlements = prepared.entitlements {
            slots.entitlements = try EntitlementsBlob.xml(.dictionary(entitlements)).bytes()
            slots.derEntitlements = try EntitlementsBlob.der(.dictionary(entitlements)).bytes()
        }
        return slots
    }

    /// Whether a bundle's entitlements allow a debugger to attach.
    static func getTaskAllow(_ prepared: PreparedBundle) -> Bool { prepared.entitlements?["get-task-allow"]?.boolValue ?? false }

    /// The entitlements a bundle is signed with: `--entitlements` for the app, else derived from its
    /// profile, else (ad hoc, no profile) those of its old signature.
    static func entitlements(
        identifier: String, isOutermost: Bool, profile: ProfileFile?, header: ExecutableHeader, options: BundleSigningOptions
    ) throws -> PlistDictionary? {
        if isOutermost, let given = options.entitlements { return given }
        if let profile { return ProfileEntitlements.derive(from: profile.profile, bundleIdentifier: identifier) }
        return header.entitlements
    }

    /// The requirement set: the designated requirement for the identity, or none for an ad-hoc signature.
    static func requirements(_ identifier: String, _ options: BundleSigningOptions) throws -> [UInt8] {
        guard let identity = options.identity else { return RequirementSet([]).bytes() }
        let chain = RequirementContext.chain(from: identity.certificate, among: identity.chain)
        return try DesignatedRequirement.requirementSet(identifier: identifier, chain: chain).bytes()
    }

    /// Signs the executable at `path` into `output`, every slice with the same special slots.
    /// Signs the executable at `path` into `output`, every slice with the same special slots; one
    /// whose code `copy` has written already only gets its signatures.
    static func sign(
        _ path: String, to output: String, header: ExecutableHeader, identifier: String, slots: SpecialSlotContents, getTaskAllow: Bool,
        options: BundleSigningOptions, copy: CopyContext
    ) throws -> SignedExecutable {
        let parameters = signingParameters(
            header: header, identifier: identifier, slots: slots, getTaskAllow: getTaskAllow, options: options)
        if let signing = copy.signings[output] { return try signing.finish(parameters: parameters) }
        return try MachOSigner.sign(file: path, to: output, parameters: parameters)
    }

    /// The parameters each slice of an executable is signed with.
    static func signingParameters(
        header: ExecutableHeader, identifier: String, slots: SpecialSlotContents, getTaskAllow: Bool, options: BundleSigningOptions
    ) -> (MachOSlice) -> CodeSigningParameters {
        let teamID = options.identity.flatMap { $0.certificate.organizationalUnit }
        let hashTypes = header.hashTypes
        return { slice in
            var flags: UInt64 = 0
            if slice.fileType == ExecutableHeader.executeFileType {
                flags = CodeDirectory.ExecSegmentFlag.mainBinary | (getTaskAllow ? CodeDirectory.ExecSegmentFlag.allowUnsigned : 0)
            }
            return CodeSigningParameters(
                identifier: identifier, teamID: teamID, hashTypes: hashTypes, execSegmentFlags: flags, specialSlots: slots,
                identity: options.identity, signingTime: options.now)
        }
    }
}

/// What the signer needs from an executable before signing it: its slices' load commands, and the
/// identifier and entitlements of its old signature.
struct ExecutableHeader {
    static let executeFileType: UInt32 = 2

    let slices: [MachOSlice]
    let identifier: String?
    let entitlements: PlistDictionary?

    init(path: String, limits: PlistLimits) throws {
        do {
            let map = try MappedExecutable(path: path)
            let file = try MachOFile(size: map.bytes.count) { offset, count in map.read(offset, count) }
            slices = file.slices
            let signature = try? file.slices.first?.embeddedSignature()
            identifier = signature?.codeDirectory?.identifier
            entitlements = (try? signature?.entitlements?.entitlements(limits: limits))??.dictionaryValue
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            throw error.inFile(path)
        }
    }

    /// SHA-256 alone, or SHA-1 first and SHA-256 beside it when a slice runs on an OS older than the
    /// first to check SHA-256 (iOS and tvOS 11, watchOS 4, macOS 10.12), or does not say.
    var hashTypes: [HashType] {
        let old = slices.contains { slice in
            guard let minimum = slice.minimumOS else { return true }
            switch minimum.platform {
            case 4, 9: return minimum.version < PackedVersion(4)
            case 1: return minimum.version < PackedVersion(10, 12)
            default: return minimum.version < PackedVersion(11)
            }
        }
        return old ? [.sha1, .sha256] : [.sha256]
    }
}

/// The code in a bundle folder, found where Apple's tools put it (``CodeItemLocator/places``).
enum CodeTree {
    struct Item {
        var path: String
        var kind: CodeItemKind
    }

    /// The bundle at `path` and its nested code, every nested item before the bundle holding it.
    static func insideOut(bundle path: String, depth: Int = 0) -> [Item] {
        var items: [Item] = []
        let manager = FileManager.default
        if depth < CodeItemLocator.maxDepth {
            for (folder, suffixes) in CodeItemLocator.places {
                let names = ((try? manager.contentsOfDirectory(atPath: path + "/" + folder)) ?? []).sorted()
                for name in names {
                    guard let suffix = suffixes.first(where: { name.hasSuffix($0) }), name.count > suffix.count else { continue }
                    let child = path + "/" + folder + "/" + name
                    guard let type = FileIO.kind(of: child) else { continue }
                    if suffix == ".dylib" {
                        if case .file = type { items.append(Item(path: child, kind: .dylib)) }
                    } else if case .folder = type, !((try? manager.contentsOfDirectory(atPath: child)) ?? []).isEmpty {
                        items += insideOut(bundle: child, depth: depth + 1)
                        items[items.count - 1].kind = CodeItemLocator.kind(suffix)
                    }
                }
            }
        }
        items.append(Item(path: path, kind: .app))
        return items
    }
}
