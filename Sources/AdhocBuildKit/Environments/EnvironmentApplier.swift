import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport
import XcodeProjectEditing

/// `env apply`: writes an environment's `Settings` as `environment.plist` and patches the
/// Info.plist with its `Info`, in a built `.app` or in a source tree before the build.
///
/// Each file keeps its format (a binary Info.plist stays binary), is written atomically, and
/// is left untouched when nothing changes, so applying twice is the same as applying once.
public struct EnvironmentApplier: Sendable {
    /// One value that applying changes (or, in a dry run, would change).
    public struct ValueChange: Equatable, Sendable {
        /// The key path, or for `project.pbxproj` the target, configuration and build setting.
        public var key: String
        /// The value before, nil when the key is new.
        public var old: PlistValue?
        /// The value after, nil when the key is removed.
        public var new: PlistValue?

        public init(key: String, old: PlistValue?, new: PlistValue?) {
            self.key = key
            self.old = old
            self.new = new
        }

        /// `Key: "old" -> "new"`, with `(none)` for a new key and `(removed)` for a removed one.
        public var line: String {
            "\(key): \(old.map(EnvironmentDiff.render) ?? "(none)") -> \(new.map(EnvironmentDiff.render) ?? "(removed)")"
        }
    }

    /// What applying did (or, in a dry run, would do) to one file.
    public struct FileChange: Equatable, Sendable {
        public enum Action: String, Sendable { case created, updated, unchanged }
        public var path: String
        public var action: Action
        /// The values that differ, for an update.
        public var values: [ValueChange]

        /// The key paths whose values differ, for an update.
        public var keyPaths: [String] { values.map(\.key) }

        /// `path: updated` (in a dry run `path: would be updated`), then one indented
        /// `Key: old -> new` line per value that changes.
        public func lines(dryRun: Bool = false) -> [String] {
            let verb = action == .unchanged || !dryRun ? action.rawValue : "would be \(action.rawValue)"
            return ["\(path): \(verb)"] + (action == .updated ? values.map { "  " + $0.line } : [])
        }
    }

    /// The outcome: each file's change, and warnings (a signature made invalid, say).
    public struct Report: Sendable {
        public var changes: [FileChange]
        public var warnings: [Diagnostic]
        /// What was signed after the change, when a signing request was given.
        public var signed: BundleSigningReport? = nil
    }

    public var environment: ResolvedEnvironment
    /// Writes nothing, and otherwise does what the real run would: the same refusals, the same warnings.
    public var dryRun: Bool
    /// Lets applying change a signed app, breaking its signature (`--allow-broken-signature`);
    /// without it, applying to a signed app that it would change is refused before anything is written.
    public var allowBrokenSignature: Bool
    /// How to re-sign an app bundle after applying (resolved and checked by
    /// ``SigningRequest/resolve(_:projectFile:processEnvironment:)``); the signer consumes it.
    public var signing: SigningRequest?
    /// Set when the caller signs the app after applying: the seal is made again, so breaking it is
    /// neither refused nor warned about.
    var willBeSigned = false
    /// The limits the app's plists and the signing files are read with.
    public var limits: ReaderLimits = .standard

    public init(
        environment: ResolvedEnvironment, dryRun: Bool = false, allowBrokenSignature: Bool = false, signing: SigningRequest? = nil
    ) {
        self.environment = environment
        self.dryRun = dryRun
        self.allowBrokenSignature = allowBrokenSignature
        self.signing = signing
    }

    public static let environmentFileName = "environment.plist"

    /// How a built app (in an .ipa, say) differs from this environment: each `Info` key whose value is
    /// not the environment's, each id of a nested bundle that is not under the environment's bundle id,
    /// and `environment.plist` when it is missing or holds other settings. Empty when the app is already
    /// built for the environment.
    public func differences(from app: AppBundle) throws -> [String] {
        var differences: [String] = []
        for (key, wanted) in environment.info where app.info[key] != wanted {
            let actual = app.info[key].map { PlistTextPrinter().renderInline($0) } ?? "missing"
            differences.append("\(key) is \(actual), \(environment.name) has \(PlistTextPrinter().renderInline(wanted))")
        }
        if case .string(let id)? = environment.info["CFBundleIdentifier"] {
            differences += NestedBundleRetarget.idsNotUnder(id, in: app.nested)
        }
        let settings = environment.settings
        if app.file(Self.environmentFileName) == nil {
            if !settings.isEmpty { differences.append("it has no \(Self.environmentFileName)") }
        } else if try PropertyList(data: try app.read(Self.environmentFileName), limits: limits.plist).value != .dictionary(settings) {
            differences.append("its \(Self.environmentFileName) holds other settings than \(environment.name)'s")
        }
        return differences
    }

    /// Applies to a built app bundle: `environment.plist` at the bundle's top (binary unless
    /// `format` says otherwise) and its Info.plist patched. When the bundle id changes, the bundles
    /// it embeds (extensions, Watch apps, App Clips) move under the new id (``NestedBundleRetarget``);
    /// one whose id is under neither the old nor the new id is an error, and nothing is written.
    /// Applies the environment to the app inside `input` (an `.ipa`, or a `.zip` holding one `.app`)
    /// and writes the changed app as the ipa `output` (which may be the input, to replace it); see
    /// ``ArchivedAppChange``. With a signing request, every bundle is signed again; without one, a
    /// signed app the environment changes is refused as ``apply(toApp:format:)`` refuses it.
    public func apply(toArchive input: String, output: String?, format: PlistFormat = .binary) throws -> Report {
        let change = try ArchivedAppChange(input: input, output: output, dryRun: dryRun, signing: signing, limits: limits)
        var inner = self
        inner.signing = nil
        inner.willBeSigned = signing != nil
        var (report, signed, naming) = try change.run { app in try inner.apply(toApp: app, format: format) }
        report.changes = report.changes.map { change in
            var named = change
            named.path = naming(change.path)
            return named
        }
        report.warnings = report.warnings.map { $0.mappingText(naming) }
        report.signed = signed
        return report
    }

    public func apply(toApp app: String, format: PlistFormat = .binary) throws -> Report {
        guard FileIO.kind(of: app) == .folder else {
            throw Diagnostic.build("no app bundle here", file: app)
        }
        if let signing, dryRun {
            // What the real run reads before it changes anything (the identity, its password, the
            // profiles) is read here too; as the real run re-signs the app, its seal is not refused.
            _ = try signing.options(limits: limits.plist)
            var unsigned = self
            unsigned.signing = nil
            unsigned.willBeSigned = true
            return try unsigned.apply(toApp: app, format: format)
        }
        if let signing {
            // Applied to a copy that is then signed and renamed over the app: all or nothing.
            var unsigned = self
            unsigned.signing = nil
            unsigned.willBeSigned = true
            let root = app.hasSuffix("/") ? String(app.dropLast()) : app
            var copyPath = ""
            var (report, signed) = try AppSigning.changeAndSign(app: root, options: try signing.options(limits: limits.plist)) { copy in
                copyPath = copy
                return try unsigned.apply(toApp: copy, format: format)
            }
            report.changes = report.changes.map { change in
                var moved = change
                if moved.path.hasPrefix(copyPath) { moved.path = root + moved.path.dropFirst(copyPath.count) }
                return moved
            }
            report.signed = signed
            return report
        }
        let info = (app as NSString).appendingPathComponent("Info.plist")
        guard FileManager.default.fileExists(atPath: info) else {
            throw Diagnostic.build("has no Info.plist; is it an app bundle?", file: app)
        }
        // The app's files are the build's: none may be a link that leads out of the bundle.
        var files = FileTransaction(bundle: app)
        let infoChange = try patch(info, with: environment.info, into: &files)
        let nestedChanges = try Self.retarget(after: infoChange)?.apply(toApp: app, into: &files, limits: limits.plist) ?? []
        let settingsChange = try writeSettings(
            to: (app as NSString).appendingPathComponent(Self.environmentFileName),
            format: format, into: &files)
        var warnings: [Diagnostic] = []
        let changes = [infoChange] + nestedChanges + [settingsChange]
        let top = info.dropLast("Info.plist".count)
        let touched = changes.compactMap { change in
            change.action == .unchanged
                ? nil : (verb: change.action == .created ? "adds" : "changes", file: String(change.path.dropFirst(top.count)))
        }
        // Every file of a signed bundle is sealed: refuse before writing, unless allowed. A dry run refuses
        // as the real run would (it said `going on: --allow-broken-signature` and exited 0 without the flag).
        if !touched.isEmpty, !willBeSigned,
            let warning = try SealGuard.check(
                app: app, action: "applying \(environment.name)", changes: SealGuard.phrase(touched),
                allowBroken: allowBrokenSignature, limits: limits.plist)
        {
            warnings.append(warning)
        }
        if !dryRun { try files.commit() }
        return Report(changes: changes, warnings: warnings)
    }

    /// How the bundles nested in an app follow its bundle id, when patching its Info.plist (`infoChange`)
    /// changes the id; nil when the id stays.
    static func retarget(after infoChange: FileChange) -> NestedBundleRetarget? {
        guard let change = infoChange.values.first(where: { $0.key == "CFBundleIdentifier" }),
            case .string(let old)? = change.old, case .string(let new)? = change.new
        else { return nil }
        return NestedBundleRetarget(old: old, new: new)
    }

    /// Applies to a source tree: the Info.plist (`infoPlist`, or the one Info.plist found under
    /// `project`) patched and `environment.plist` written beside it (or at `output`), as XML.
    public func apply(
        toProject project: String, infoPlist: String? = nil, output: String? = nil,
        format: PlistFormat = .xml
    ) throws -> Report {
        let info = try infoPlist ?? EnvironmentApplier.findInfoPlist(in: project, limits: limits.plist)
        var files = FileTransaction()
        let (plain, references) = ReferencedInfoValues.split(
            environment.info, over: try PropertyList(contentsOf: info, limits: limits.plist).value)
        let infoChange = try patch(info, with: plain, into: &files)
        let (projectChange, referenceWarnings) = try ReferencedInfoValues.apply(
            references, infoPlist: info, project: project, limits: limits.plist, into: &files)
        let target =
            output
            ?? ((info as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent(Self.environmentFileName)
        let settingsChange = try writeSettings(to: target, format: format, into: &files)
        if !dryRun { try files.commit() }
        var warnings = referenceWarnings
        if settingsChange.action == .created {
            warnings.append(
                Diagnostic.build(
                    "\(target) is new: add it to the app target in Xcode (Copy Bundle Resources) so that the built app carries it",
                    severity: .warning))
        }
        return Report(changes: [infoChange] + (projectChange.map { [$0] } ?? []) + [settingsChange], warnings: warnings)
    }

    /// Folders that hold build output or dependencies, never the app's own Info.plist.
    static let skippedFolders: Set<String> = [
        ".build", "build", "DerivedData", "Pods", "Carthage", ".git", "node_modules",
        "fastlane", ".swiftpm"
    ]

    /// The single Info.plist of an app under `project`; an error naming them when there are several.
    public static func findInfoPlist(in project: String, limits: PlistLimits = .default) throws -> String {
        guard let enumerator = FileManager.default.enumerator(atPath: project) else {
            throw Diagnostic.build("cannot be read as a folder", file: project)
        }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if skippedFolders.contains(name)
                || [".app", ".appex", ".xcodeproj", ".xcarchive", ".framework", ".bundle"]
                    .contains(where: name.hasSuffix)
            {
                enumerator.skipDescendants()
                continue
            }
            if name == "Info.plist" && !relative.contains("Tests/") { found.append(relative) }
        }
        found.sort()
        switch found.count {
        case 0: throw Diagnostic.build("has no Info.plist; name one with --info-plist", file: project)
        case 1: return (project as NSString).appendingPathComponent(found[0])
        default:
            if let app = try? applicationInfoPlist(in: project, among: found, limits: limits) { return app }
            throw Diagnostic.build(
                "has \(found.count) Info.plist files (\(found.joined(separator: ", "))); "
                    + "choose one with --info-plist", file: project)
        }
    }

    /// The one Info.plist of `found` that the application targets of the folder's Xcode project build
    /// from, if there is exactly one (an app with extensions has several Info.plists).
    static func applicationInfoPlist(in folder: String, among found: [String], limits: PlistLimits) throws -> String? {
        let project = try XcodeProject(at: folder, limits: limits)
        func canonical(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        let applications = Set(
            project.targets.filter { $0.productType == "com.apple.product-type.application" }.flatMap { target in
                target.configurations.compactMap { project.infoPlistPath(target: target, configuration: $0).map(canonical) }
            })
        let matches = found.map { (folder as NSString).appendingPathComponent($0) }.filter { applications.contains(canonical($0)) }
        return matches.count == 1 ? matches[0] : nil
    }

    /// Merges `info` (the environment's `Info`, or part of it) into the plist at `path`, keeping its
    /// format; the write joins `files`.
    func patch(_ path: String, with info: PlistDictionary, into files: inout FileTransaction) throws -> FileChange {
        let original: PropertyList
        original = try PropertyList(contentsOf: path, limits: limits.plist)
        guard case .dictionary = original.value else {
            throw Diagnostic.build("an Info.plist must be a dictionary, not \(original.value.kindWithArticle)", file: path, keyPath: "")
        }
        guard original.format != .openStep else {
            throw Diagnostic.build("is an OpenStep plist, which adhocbuild does not rewrite", file: path)
        }
        let patch = PlistValue.dictionary(info)
        let merged = PlistMerge([.init(name: "old", value: original.value), .init(name: "new", value: patch)]).value
        let changed = PlistMerge([.init(name: "new", value: patch)]).leaves
            .map(\.keyPath).filter { original.value[$0] != merged[$0] }
        guard !changed.isEmpty else {
            files.leaveUnchanged(path)
            return FileChange(path: path, action: .unchanged, values: [])
        }
        try files.write(PropertyList(merged, format: original.format), to: path)
        return FileChange(
            path: path, action: .updated,
            values: changed.map { ValueChange(key: $0.description, old: original.value[$0], new: merged[$0]) })
    }

    /// Writes `Settings` to `path` unless it already holds exactly that; the write joins `files`.
    func writeSettings(to path: String, format: PlistFormat, into files: inout FileTransaction) throws -> FileChange {
        let settings = PlistValue.dictionary(environment.settings)
        let exists = FileManager.default.fileExists(atPath: path)
        if exists, let current = try? PropertyList(contentsOf: path, limits: limits.plist), current.value == settings,
            current.format == format
        {
            files.leaveUnchanged(path)
            return FileChange(path: path, action: .unchanged, values: [])
        }
        var changed: [ValueChange] = []
        if exists, let current = try? PropertyList(contentsOf: path, limits: limits.plist) {
            let old = Dictionary(
                PlistMerge([.init(name: "", value: current.value)]).leaves.map { ($0.keyPath, $0.value) },
                uniquingKeysWith: { first, _ in first })
            let new = PlistMerge([.init(name: "", value: settings)]).leaves
            changed =
                new.filter { old[$0.keyPath] != $0.value }.map {
                    ValueChange(key: $0.keyPath.description, old: old[$0.keyPath], new: $0.value)
                }
                + old.keys.filter { settings[$0] == nil }.sorted { $0.description < $1.description }
                .map { ValueChange(key: $0.description, old: old[$0], new: nil) }
        }
        try files.write(PropertyList(settings, format: format), to: path)
        return FileChange(path: path, action: exists ? .updated : .created, values: changed)
    }
}
