import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport
import XcodeProjectEditing

/// `version bump`: sets a version field everywhere it lives — every Info.plist of the app
/// and its extensions (they must match, or installs fail) and the project's build settings
/// where plists refer to them — changing nothing else in any file.
public struct VersionBumper: Sendable {
    /// What to change: a source tree, an app bundle, or one plist.
    public enum Target: Sendable {
        case project(String)
        case app(String)
        case plist(String)
    }

    /// How to choose the new value.
    public enum NewValue: Sendable {
        /// Exactly this.
        case exactly(String)
        /// The CI server's build counter (`BUILD_NUMBER`, `GITHUB_RUN_NUMBER`, `CI_PIPELINE_IID`).
        case fromCI([String: String])
        /// The current value with its last component raised by one.
        case increment
        /// A marketing version with `part` raised.
        case bump(BundleVersion.Part)
    }

    /// One site's change.
    public struct Change: Equatable, Sendable {
        public var site: VersionSite
        public var newValue: String
        public var line: String { "\(site.label): \(site.value) -> \(newValue)" }
    }

    public var target: Target
    public var field: VersionField
    public var allowDecrease: Bool
    /// Writes nothing, and otherwise does what the real run would: the same refusals, the same warnings.
    public var dryRun: Bool
    /// Lets a bump change a signed app, breaking its signature (`--allow-broken-signature`); without
    /// it, bumping a signed app is refused before anything is written.
    public var allowBrokenSignature: Bool
    /// How to re-sign an app bundle after the bump (resolved and checked by
    /// ``SigningRequest/resolve(_:projectFile:processEnvironment:)``); the signer consumes it.
    public var signing: SigningRequest?
    /// Where the changed app goes when the target is an `.ipa` or a `.zip` holding an `.app`: the
    /// new ipa (`--output`; the input's own path replaces it).
    public var output: String?
    /// The limits the plists and the signing files are read with.
    public var limits: ReaderLimits = .standard
    /// Set when the caller signs the app after bumping: breaking the seal is neither refused nor warned about.
    var willBeSigned = false

    public init(
        target: Target, field: VersionField, allowDecrease: Bool = false, dryRun: Bool = false, allowBrokenSignature: Bool = false,
        signing: SigningRequest? = nil
    ) {
        self.target = target
        self.field = field
        self.allowDecrease = allowDecrease
        self.dryRun = dryRun
        self.allowBrokenSignature = allowBrokenSignature
        self.signing = signing
    }

    /// Every site of the field, with the current values.
    public func sites() throws -> (sites: [VersionSite], project: XcodeProject?) {
        switch target {
        case .project(let location):
            let project = try XcodeProject(at: location, limits: limits.plist)
            return (try VersionSites.inProject(project, field: field, limits: limits.plist), project)
        case .app(let app):
            return (try VersionSites.inPlists(try VersionSites.bundlePlists(in: app), field: field, limits: limits.plist), nil)
        case .plist(let path): return (try VersionSites.inPlists([path], field: field, limits: limits.plist), nil)
        }
    }

    /// Works out the new value, checks it, and writes it to every site (unless a dry run).
    /// Returns the changes, including sites that already held the value.
    @discardableResult
    public func bump(_ request: NewValue) throws -> [Change] {
        var warnings: [Diagnostic] = []
        return try bump(request, warnings: &warnings)
    }

    /// ``bump(_:)``, with the warnings it has (a signature it breaks, when allowed to).
    public func bump(_ request: NewValue, warnings: inout [Diagnostic]) throws -> [Change] {
        var signed: BundleSigningReport?
        return try bump(request, warnings: &warnings, signed: &signed)
    }

    /// ``bump(_:warnings:)``; with a signing request and an app, the app is checked for signing first
    /// (identity, profiles, binaries; a bump changes no bundle id), bumped, then signed, and `signed`
    /// says what was signed.
    public func bump(_ request: NewValue, warnings: inout [Diagnostic], signed: inout BundleSigningReport?) throws -> [Change] {
        if case .app(let path) = target, ArchivedAppChange.isArchive(path) {
            return try bumpArchive(path, request, warnings: &warnings, signed: &signed)
        }
        var signingOptions: BundleSigningOptions?
        // Checked in a dry run too: it says what the real run would do, refusals included.
        if let signing, case .app(let app) = target {
            let options = try signing.options(limits: limits.plist)
            try BundleSigner.check(bundle: app.hasSuffix("/") ? String(app.dropLast()) : app, options: options)
            signingOptions = options
        }
        let (sites, project) = try sites()
        let currentVersions = sites.compactMap { BundleVersion($0.value) }
        let highest = currentVersions.max()
        let newText: String
        switch request {
        case .exactly(let text): newText = text
        case .fromCI(let environment): newText = try Self.ciBuildNumber(environment, field: field)
        case .increment, .bump:
            guard currentVersions.count == sites.count, let highest else {
                let bad = sites.first { BundleVersion($0.value) == nil }!
                throw Diagnostic.build(
                    BundleVersion.problem(bad.value, field: field.label) + "; give the new value with --to",
                    file: bad.label)
            }
            if case .bump(let part) = request {
                newText = highest.bumping(part).description
            } else {
                newText = highest.incrementingLast.description
            }
        }
        guard let newVersion = BundleVersion(newText) else {
            throw Diagnostic.build(BundleVersion.problem(newText, field: field.label))
        }
        if let highest, newVersion < highest, !allowDecrease {
            // Named by where the highest current value is, so the user sees which file holds it.
            let holder = sites.first { BundleVersion($0.value) == highest }
            throw Diagnostic.build(
                "the \(field.label) would go backwards from \(highest) to \(newVersion); "
                    + "pass --allow-decrease if that is intended", file: holder?.label)
        }
        let changes = sites.map { Change(site: $0, newValue: newText) }
        if case .app(let app) = target {
            let root = app.hasSuffix("/") ? String(app.dropLast()) : app
            let files = changes.filter { $0.site.value != $0.newValue }.compactMap { change -> String? in
                guard case .plist(let path, _) = change.site.location else { return nil }
                return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
            }
            // A seal the bump breaks and a signer then makes again is neither refused nor warned about.
            let resigned = willBeSigned || signingOptions != nil
            if !files.isEmpty, !resigned,
                let warning = try SealGuard.check(
                    app: root, action: "setting the \(field.label) to \(newText)",
                    changes: SealGuard.phrase(Array(Set(files)).sorted().map { (verb: "changes", file: $0) }),
                    allowBroken: allowBrokenSignature, limits: limits.plist)
            {
                warnings.append(warning)
            }
        }
        let pending = changes.filter { $0.site.value != $0.newValue }
        if let signingOptions, !dryRun, case .app(let app) = target {
            // Bumped in a copy that is signed and renamed over the app: all or nothing, so a failure
            // while signing leaves the app as it was, not bumped with its seal broken.
            let root = app.hasSuffix("/") ? String(app.dropLast()) : app
            (_, signed) = try AppSigning.changeAndSign(app: root, options: signingOptions) { copy in
                try write(pending.map { Self.relocated($0, from: root, to: copy) }, project: project, bundle: copy)
            }
        } else if !dryRun {
            var bundle: String?
            if case .app(let app) = target { bundle = app }
            try write(pending, project: project, bundle: bundle, considered: changes)
        }
        return changes
    }

    /// The bump of the app inside the archive `path`, written as the ipa ``output`` (see ``ArchivedAppChange``).
    private func bumpArchive(_ path: String, _ request: NewValue, warnings: inout [Diagnostic], signed: inout BundleSigningReport?) throws
        -> [Change]
    {
        let change = try ArchivedAppChange(input: path, output: output, dryRun: dryRun, signing: signing, limits: limits)
        var inner = self
        inner.signing = nil
        inner.willBeSigned = signing != nil
        var innerWarnings: [Diagnostic] = []
        let (changes, signedReport, naming) = try change.run { app in
            inner.target = .app(app)
            return try inner.bump(request, warnings: &innerWarnings)
        }
        warnings += innerWarnings.map { $0.mappingText(naming) }
        signed = signedReport
        return changes.map { change in
            guard case .plist(let file, let key) = change.site.location else { return change }
            var named = change
            named.site.location = .plist(path: naming(file), key: key)
            return named
        }
    }

    /// The build counter `--from-ci` takes, checked as a version: an error naming the variable it was read
    /// from when it is not one (`'1207-rc' (from BUILD_NUMBER) is not a valid build number: …`), or when
    /// no counter is set. `release` calls it before it copies anything.
    public static func ciBuildNumber(_ environment: [String: String], field: VersionField = .build) throws -> String {
        guard let (variable, counter) = CIEnvironment.buildNumberSource(in: environment) else {
            throw Diagnostic.build(
                "--from-ci found no build counter: none of " + CIEnvironment.buildNumberVariables.joined(separator: ", ") + " is set")
        }
        guard BundleVersion(counter) != nil else {
            throw Diagnostic.build(BundleVersion.problem(counter, field: field.label, from: variable))
        }
        return counter
    }

    /// `change` with its plist path moved from under `root` to under `copy`.
    static func relocated(_ change: Change, from root: String, to copy: String) -> Change {
        guard case .plist(let path, let key) = change.site.location, path == root || path.hasPrefix(root + "/") else { return change }
        var moved = change
        moved.site.location = .plist(path: copy + path.dropFirst(root.count), key: key)
        return moved
    }

    /// Writes `changes`; with `bundle` (an app's own files), none may go through a link leading out of it.
    /// The folders of every file `considered`, changed or not, are cleared of what killed runs left.
    private func write(_ changes: [Change], project: XcodeProject?, bundle: String?, considered: [Change] = []) throws {
        var plistEdits: [String: [(String, String)]] = [:]
        var plistOrder: [String] = []
        var replacements: [(range: Range<Int>, text: String)] = []
        for change in changes {
            switch change.site.location {
            case .plist(let path, let key):
                if plistEdits[path] == nil { plistOrder.append(path) }
                plistEdits[path, default: []].append((key, change.newValue))
            case .buildSetting(_, let objectID, _, _, let setting):
                guard let project,
                    let configuration = (project.projectConfigurations + project.targets.flatMap(\.configurations))
                        .first(where: { $0.objectID == objectID }), let range = configuration.range(of: setting)
                else { continue }
                replacements.append((range, XcodeProject.token(change.newValue, quoted: configuration.quoted(setting))))
            }
        }
        var files = FileTransaction(bundle: bundle)
        for change in considered {
            switch change.site.location {
            case .plist(let path, _): files.leaveUnchanged(path)
            case .buildSetting(let path, _, _, _, _): files.leaveUnchanged(path)
            }
        }
        for path in plistOrder {
            var plist = try PropertyList(contentsOf: path, limits: limits.plist)
            for (key, value) in plistEdits[path]! { try plist.value.setValue(.string(value), at: PlistKeyPath([key])) }
            try files.write(plist, to: path)
        }
        if let project, !replacements.isEmpty { files.write(Data(try project.replacing(replacements)), to: project.path) }
        try files.commit()
    }
}
