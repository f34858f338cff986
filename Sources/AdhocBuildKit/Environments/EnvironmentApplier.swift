import Foundation
import PlistKit
import SystemSupport

/// `env apply`: writes an environment's `Settings` as `environment.plist` and patches the
/// Info.plist with its `Info`, in a built `.app` or in a source tree before the build.
///
/// Each file keeps its format (a binary Info.plist stays binary), is written atomically, and
/// is left untouched when nothing changes, so applying twice is the same as applying once.
public struct EnvironmentApplier: Sendable {
    /// What applying did (or, in a dry run, would do) to one file.
    public struct FileChange: Equatable, Sendable {
        public enum Action: String, Sendable { case created, updated, unchanged }
        public var path: String
        public var action: Action
        /// The key paths whose values differ, for an update.
        public var keyPaths: [PlistKeyPath]

        /// `path: updated Key, Other:Key`; in a dry run, `path: would be updated …`.
        public func line(dryRun: Bool = false) -> String {
            let verb = action == .unchanged || !dryRun ? action.rawValue : "would be \(action.rawValue)"
            let keys = action == .updated && !keyPaths.isEmpty ? " " + keyPaths.map(\.description).joined(separator: ", ") : ""
            return "\(path): \(verb)\(keys)"
        }
    }

    /// The outcome: each file's change, and warnings (a signature made invalid, say).
    public struct Report: Sendable {
        public var changes: [FileChange]
        public var warnings: [String]
    }

    public var environment: ResolvedEnvironment
    public var dryRun: Bool

    public init(environment: ResolvedEnvironment, dryRun: Bool = false) {
        self.environment = environment
        self.dryRun = dryRun
    }

    public static let environmentFileName = "environment.plist"

    /// Applies to a built app bundle: `environment.plist` at the bundle's top (binary unless
    /// `format` says otherwise) and its Info.plist patched.
    public func apply(toApp app: String, format: PlistFormat = .binary) throws -> Report {
        guard FileIO.kind(of: app) == .folder else {
            throw AdhocBuildError("no app bundle here", file: app)
        }
        let info = (app as NSString).appendingPathComponent("Info.plist")
        guard FileManager.default.fileExists(atPath: info) else {
            throw AdhocBuildError("has no Info.plist; is it an app bundle?", file: app)
        }
        var files = FileTransaction()
        let infoChange = try patch(info, into: &files)
        let settingsChange = try writeSettings(
            to: (app as NSString).appendingPathComponent(Self.environmentFileName),
            format: format, into: &files)
        if !dryRun { try files.commit() }
        var warnings: [String] = []
        let changed = [infoChange, settingsChange].contains { $0.action != .unchanged }
        if changed && FileManager.default.fileExists(atPath: (app as NSString).appendingPathComponent("_CodeSignature")) {
            warnings.append(
                "\(app) was signed; \(dryRun ? "applying would make" : "its") signature \(dryRun ? "invalid" : "is now invalid"), "
                    + "so re-sign it before installing")
        }
        return Report(changes: [infoChange, settingsChange], warnings: warnings)
    }

    /// Applies to a source tree: the Info.plist (`infoPlist`, or the one Info.plist found under
    /// `project`) patched and `environment.plist` written beside it (or at `output`), as XML.
    public func apply(
        toProject project: String, infoPlist: String? = nil, output: String? = nil,
        format: PlistFormat = .xml
    ) throws -> Report {
        let info = try infoPlist ?? EnvironmentApplier.findInfoPlist(in: project)
        var files = FileTransaction()
        let infoChange = try patch(info, into: &files)
        let target =
            output
            ?? ((info as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent(Self.environmentFileName)
        let settingsChange = try writeSettings(to: target, format: format, into: &files)
        if !dryRun { try files.commit() }
        var warnings: [String] = []
        if settingsChange.action == .created {
            warnings.append(
                "\(target) is new: add it to the app target in Xcode (Copy Bundle Resources) so that the built app carries it")
        }
        return Report(changes: [infoChange, settingsChange], warnings: warnings)
    }

    /// Folders that hold build output or dependencies, never the app's own Info.plist.
    static let skippedFolders: Set<String> = [
        ".build", "build", "DerivedData", "Pods", "Carthage", ".git", "node_modules",
        "fastlane", ".swiftpm"
    ]

    /// The single Info.plist of an app under `project`; an error naming them when there are several.
    public static func findInfoPlist(in project: String) throws -> String {
        guard let enumerator = FileManager.default.enumerator(atPath: project) else {
            throw AdhocBuildError("cannot be read as a folder", file: project)
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
        case 0: throw AdhocBuildError("has no Info.plist; name one with --info-plist", file: project)
        case 1: return (project as NSString).appendingPathComponent(found[0])
        default:
            throw AdhocBuildError(
                "has \(found.count) Info.plist files (\(found.joined(separator: ", "))); "
                    + "choose one with --info-plist", file: project)
        }
    }

    /// Merges `Info` into the plist at `path`, keeping its format; the write joins `files`.
    func patch(_ path: String, into files: inout FileTransaction) throws -> FileChange {
        let original: PropertyList
        original = try PropertyList(contentsOf: path)
        guard case .dictionary = original.value else {
            throw AdhocBuildError("an Info.plist must be a dictionary, not \(original.value.kindWithArticle)", file: path, keyPath: "")
        }
        guard original.format != .openStep else {
            throw AdhocBuildError("is an OpenStep plist, which adhocbuild does not rewrite", file: path)
        }
        let patch = PlistValue.dictionary(environment.info)
        let merged = PlistMerge([.init(name: "old", value: original.value), .init(name: "new", value: patch)]).value
        let changed = PlistMerge([.init(name: "new", value: patch)]).leaves
            .map(\.keyPath).filter { original.value[$0] != merged[$0] }
        guard !changed.isEmpty else {
            files.leaveUnchanged(path)
            return FileChange(path: path, action: .unchanged, keyPaths: [])
        }
        try files.write(PropertyList(merged, format: original.format), to: path)
        return FileChange(path: path, action: .updated, keyPaths: changed)
    }

    /// Writes `Settings` to `path` unless it already holds exactly that; the write joins `files`.
    func writeSettings(to path: String, format: PlistFormat, into files: inout FileTransaction) throws -> FileChange {
        let settings = PlistValue.dictionary(environment.settings)
        let exists = FileManager.default.fileExists(atPath: path)
        if exists, let current = try? PropertyList(contentsOf: path), current.value == settings, current.format == format {
            files.leaveUnchanged(path)
            return FileChange(path: path, action: .unchanged, keyPaths: [])
        }
        var changed: [PlistKeyPath] = []
        if exists, let current = try? PropertyList(contentsOf: path) {
            let old = Dictionary(
                PlistMerge([.init(name: "", value: current.value)]).leaves.map { ($0.keyPath, $0.value) },
                uniquingKeysWith: { first, _ in first })
            let new = PlistMerge([.init(name: "", value: settings)]).leaves
            changed =
                new.filter { old[$0.keyPath] != $0.value }.map(\.keyPath)
                + old.keys.filter { settings[$0] == nil }.sorted { $0.description < $1.description }
        }
        try files.write(PropertyList(settings, format: format), to: path)
        return FileChange(path: path, action: exists ? .updated : .created, keyPaths: changed)
    }
}
