import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport

extension SigningRequest {
    /// Reads the identity (with more of its chain from `chain`, PEM), the profiles and the
    /// entitlements: the options the signer takes. `embedding` is the profile a release embeds
    /// (`--profile`), the app's signing profile when the request names none. Plists are read with `limits`,
    /// and the bundles' plists are signed reading with them too.
    public func options(
        chain: String? = nil, now: Date = Date(), embedding: String? = nil, limits: PlistLimits = .default
    ) throws -> BundleSigningOptions {
        let identity = try SigningIdentity(p12: identity, password: password, chainPEM: chain)
        var entitlementsValue: PlistDictionary?
        if let entitlements {
            guard let dictionary = try PropertyList(contentsOf: entitlements, limits: limits).value.dictionaryValue else {
                throw Diagnostic.build("is not a dictionary of entitlements", file: entitlements)
            }
            entitlementsValue = dictionary
        }
        var options = BundleSigningOptions(
            identity: identity, appProfile: try (appProfile ?? embedding).map { try ProfileFile(path: $0, limits: limits) },
            profiles: try profiles.mapValues { try ProfileFile(path: $0, limits: limits) }, entitlements: entitlementsValue, now: now)
        options.entitlementsFile = entitlements
        options.limits = limits
        // What needs no bundle to judge (the key, the certificate's validity, each profile against it) is
        // refused now, before a release copies the build.
        try SigningPreflight.checkBeforeBundles(
            identity: identity, profiles: [options.appProfile].compactMap { $0 } + options.profiles.values.sorted { $0.path < $1.path },
            now: now)
        return options
    }
}

/// `codesign sign`: signs an `.app`, `.ipa` or `.xcarchive` into a new one (or over the input), all or
/// nothing. The input is copied (an `.ipa` unpacked) into a temporary folder beside the output, signed
/// there, and renamed over the output (an `.ipa` packaged to it) only when every piece of code is signed:
/// a refusal or a failure halfway leaves the input and the output as they were.
public enum AppSigning {
    /// Signs `input` into `output` (nil: over the input); an `.ipa` is unpacked with `archiveLimits`.
    /// Returns what was signed.
    public static func sign(
        _ input: String, output: String? = nil, options: BundleSigningOptions, archiveLimits: ZipArchiveReader.Limits = .standard
    ) throws -> BundleSigningReport {
        // A bundle given as `.`, `App.app/.` or through a link is its own folder (whose name the copy takes).
        let source =
            FileIO.kind(of: input) == .folder ? IPAPackager.bundlePath(input) : input.hasSuffix("/") ? String(input.dropLast()) : input
        let target = output.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? source
        guard FileIO.kind(of: source) != nil else { throw Diagnostic.build("no such app, ipa or archive", file: input) }
        let isIPA = FileIO.kind(of: source) == .file
        let outputIsIPA = target.hasSuffix(".ipa")
        guard isIPA || !outputIsIPA || output != nil else { throw Diagnostic.build("cannot be signed in place", file: input) }
        guard !isIPA || outputIsIPA else {
            throw Diagnostic.build("an .ipa is signed into an .ipa; name the output something.ipa", file: target)
        }
        try checkOutput(target, for: source, isIPA: isIPA, outputIsIPA: outputIsIPA, given: output ?? input)
        let parent = FileIO.split(target).folder
        // A missing output folder is made, and taken away again when signing fails.
        var made: String?
        let (existing, missing) = FileIO.missingFolders(above: target)
        if let outermost = missing.first {
            try FileIO.createFolder(parent)
            made = (existing == "/" ? "" : existing) + "/" + outermost
        }
        var succeeded = false
        defer { if !succeeded, let made { try? FileManager.default.removeItem(atPath: made) } }
        guard FileIO.kind(of: parent) == .folder else { throw Diagnostic.build("is not a folder", file: parent) }
        // Copies that killed runs left beside the output (each as large as the app) go first.
        FileIO.removeStaleTemporaries(in: parent)
        let work = FileIO.temporaryPath(for: target)
        guard WorkFiles.creating({ mkdir(work, 0o700) }) == 0 else {
            throw Diagnostic.build("cannot be written: \(SystemError.describe(errno))", file: parent)
        }
        defer { try? FileManager.default.removeItem(atPath: work) }
        // Errors found in the work folder name what the user gave: the ipa and its entry, or the bundle's own path.
        let relocation =
            isIPA
            ? PathRelocation(copy: work, original: .archive(source))
            : PathRelocation(copy: work + "/" + (source as NSString).lastPathComponent, original: .path(source))
        let report: BundleSigningReport
        do { report = try sign(source, isIPA: isIPA, work: work, into: target, options: options, archiveLimits: archiveLimits) } catch {
            throw relocation.relocate(error)
        }
        succeeded = true
        return report
    }

    /// Signs `source` in the folder `work` and puts the result at `target`: an ipa unpacked there, a
    /// bundle copied there as it is signed, then packaged to `target` or renamed over it.
    private static func sign(
        _ source: String, isIPA: Bool, work: String, into target: String, options: BundleSigningOptions,
        archiveLimits: ZipArchiveReader.Limits
    ) throws
        -> BundleSigningReport
    {
        let copy: String
        // An ipa is unpacked with every file hashed, and its unchanged entries go into the signed one
        // as they were compressed.
        var unpacked: UnpackedApp?
        var restoredModes: [String] = []
        var report: BundleSigningReport
        if isIPA {
            // Signed into an ipa, what no step reads stays in the archive; into a folder, all is written.
            let opened = try UnpackedApp.unpack(source, into: work, limits: archiveLimits, leaving: target.hasSuffix(".ipa"))
            unpacked = opened
            copy = opened.app
            restoredModes = try ExecutableModes.restore(in: copy, limits: options.limits)
            report = try BundleSigner.sign(bundle: copy, options: options, digests: opened.digests)
        } else {
            copy = work + "/" + (source as NSString).lastPathComponent
            let app = try IPAPackager.locateApp(source).app
            let copiedApp = copy + app.dropFirst(source.count)
            if app != source {
                try AppSigning.copyTree(source, to: copy, except: app)
            }
            report = try BundleSigner.sign(copying: app, to: copiedApp, options: options)
        }
        if target.hasSuffix(".ipa") {
            var packaging = IPAPackager.Options()
            packaging.verify = true
            // What the ipa held beside Payload (SwiftSupport, Symbols, iTunesMetadata.plist, …) goes back in.
            if let unpacked { packaging = unpacked.packaging(packaging) }
            _ = try IPAPackager(options: packaging).package(copy, to: target)
        } else {
            try replace(target, with: copy)
        }
        if let warning = ExecutableModes.warning(restoredModes, shown: "\(source): Payload/\((copy as NSString).lastPathComponent)") {
            report.warnings.append(warning)
        }
        return report
    }

    /// What signing may put at `target`: replacing anything there is renamed away and removed, so it
    /// must be the input itself (in place) or what signing writes, a file for an ipa and a bundle of
    /// the input's own kind for a folder; never a folder of other things (`-o dist` swapped all of
    /// `dist` for the app, the input included when it was inside), nor a path inside the input or
    /// holding it.
    static func checkOutput(_ target: String, for source: String, isIPA: Bool, outputIsIPA: Bool, given: String) throws {
        let from = IPAPackager.canonicalPath(source)
        // The output as the kernel finds it: its nearest existing folder resolved, the rest as given.
        let (folder, name) = FileIO.split(target)
        let resolvedFolder = OutputPlacement.resolved(folder)
        let to = (resolvedFolder == "/" ? "" : resolvedFolder) + "/" + name
        guard to != from else { return }
        if to.hasPrefix(from + "/") {
            throw Diagnostic.build("is inside the input \(source); write the signed build somewhere else", file: given)
        }
        if from.hasPrefix(to + "/") {
            throw Diagnostic.build(
                "holds the input \(source), which replacing it would delete; name the signed build's own path", file: given)
        }
        let suffix = source.hasSuffix(".xcarchive") ? ".xcarchive" : ".app"
        guard let kind = FileIO.kind(of: target) else {
            if !outputIsIPA && !isIPA && !name.hasSuffix(suffix) {
                throw Diagnostic.build(
                    "is not named like the signed build: a bundle's folder ends in \(suffix) (like dist/\((source as NSString).lastPathComponent))",
                    file: given)
            }
            return
        }
        if outputIsIPA {
            guard kind == .file else { throw Diagnostic.build("is a folder, not an .ipa", file: given) }
            return
        }
        let marker = suffix == ".app" ? "/Info.plist" : "/Products"
        guard kind == .folder, name.hasSuffix(suffix), FileManager.default.fileExists(atPath: target + marker) else {
            throw Diagnostic.build(
                "is \(kind == .folder ? "a folder" : "a file") that is not a signed build to replace; "
                    + "name the signed \(suffix)'s own path (like dist/\((source as NSString).lastPathComponent))", file: given)
        }
    }

    /// Makes `change` to a copy of the app bundle folder `app`, signs the copy and renames it over the
    /// app: all or nothing, as a change to a signed app must be (the seal it breaks is made again).
    /// Errors name the app's own paths, never the copy's.
    static func changeAndSign<T>(app: String, options: BundleSigningOptions, change: (String) throws -> T) throws -> (
        T, BundleSigningReport
    ) {
        let root = app.hasSuffix("/") ? String(app.dropLast()) : app
        FileIO.removeStaleTemporaries(in: FileIO.split(root).folder)
        let copy = FileIO.temporaryPath(for: root)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        do {
            // Hashed as it is copied: the signer reads again only the files `change` rewrites.
            let digests = try HashingCopy.copy(root, to: copy)
            let value = try change(copy)
            let report = try BundleSigner.sign(bundle: copy, options: options, digests: digests).naming(
                (root as NSString).lastPathComponent)
            try replace(root, with: copy)
            return (value, report)
        } catch {
            // A link in the bundle that leads out (``BundleInterior``), a file the change cannot read:
            // named as the user knows it.
            throw PathRelocation(copy: copy, original: .path(root)).relocate(error)
        }
    }

    /// Copies the folder `source` to `destination` apart from the folder `excluded` inside it (the app
    /// of an archive, which the signer copies itself), links as links, permissions kept.
    static func copyTree(_ source: String, to destination: String, except excluded: String) throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: destination, withIntermediateDirectories: false)
            for name in try FileIO.names(in: source) {
                let from = source + "/" + name, to = destination + "/" + name
                if from == excluded { continue }
                if excluded.hasPrefix(from + "/") {
                    try copyTree(from, to: to, except: excluded)
                } else {
                    try ArchiveContentsCheck.check(from)
                    try manager.copyItem(atPath: from, toPath: to)
                }
            }
        } catch let error as Diagnostic {
            throw error
        } catch  where DiskSpace.isFull(error) {
            throw Diagnostic.system("cannot be written", file: destination, code: ENOSPC)
        } catch {
            throw FoundationError.fileError(error, action: "cannot be copied to sign")
        }
    }

    /// Puts the folder `replacement` at `target`: swapped with the one there in one step (so a kill
    /// never leaves the app only under a temporary name, which the next run would remove), the old one
    /// then removed from `replacement`.
    static func replace(_ target: String, with replacement: String) throws {
        guard FileIO.kind(of: target) != nil else {
            guard Interruption.pointOfNoReturn(writing: target, { rename(replacement, target) }) == 0 else {
                throw Diagnostic.build("cannot be written: \(SystemError.describe(errno))", file: target)
            }
            return
        }
        do { try FileIO.exchange(replacement, target) } catch let error as Diagnostic where error.is(FileProblem.self) {
            throw Diagnostic.build(error.message, file: target)
        }
        try? FileManager.default.removeItem(atPath: replacement)
    }
}
