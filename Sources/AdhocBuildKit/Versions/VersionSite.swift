import Foundation
import PlistKit
import SystemSupport
import XcodeProjectEditing

/// One place a version number is stored: a literal in a plist, or a build setting in
/// `project.pbxproj` that an Info.plist refers to.
public struct VersionSite: Equatable, Sendable {
    public enum Location: Equatable, Sendable {
        case plist(path: String, key: String)
        /// A build setting of one configuration (`objectID`) in the project file.
        case buildSetting(project: String, objectID: String, configuration: String, owner: String, setting: String)
    }

    public var location: Location
    /// The stored text.
    public var value: String

    /// `Info.plist: CFBundleVersion` or `project.pbxproj: ShoutOut (Release) CURRENT_PROJECT_VERSION`.
    public var label: String {
        switch location {
        case .plist(let path, let key): return "\(path): \(key)"
        case .buildSetting(let project, _, let configuration, let owner, let setting):
            return "\(project): \(owner) (\(configuration)) \(setting)"
        }
    }
}

/// Finds every place one version field lives, in a project, an app bundle or one plist.
public enum VersionSites {
    /// The sites of `field` in a source tree: literal values in each target's Info.plist, and
    /// the build setting wherever an Info.plist refers to it (or Xcode generates the Info.plist).
    public static func inProject(_ project: XcodeProject, field: VersionField, limits: PlistLimits = .default) throws -> [VersionSite] {
        var sites: [VersionSite] = []
        var problems: [Diagnostic] = []
        func add(_ site: VersionSite) { if !sites.contains(site) { sites.append(site) } }
        for target in project.targets {
            for configuration in target.configurations {
                var referenced: String? = nil
                if let plistPath = project.infoPlistPath(target: target, configuration: configuration) {
                    guard FileManager.default.fileExists(atPath: plistPath) else {
                        if project.generatesInfoPlist(target: target, configuration: configuration) {
                            referenced = field.buildSetting
                        } else {
                            problems.append(
                                Diagnostic.build(
                                    "\(target.name) (\(configuration.name)) builds from this Info.plist, "
                                        + "which does not exist", file: plistPath))
                            continue
                        }
                        if let site = settingSite(project, target, configuration, referenced!) { add(site) }
                        continue
                    }
                    let plist = try PropertyList(contentsOf: plistPath, limits: limits).value
                    switch plist[PlistKeyPath([field.infoKey])] {
                    case .string(let text)?:
                        if let name = singleReference(text) {
                            referenced = name
                        } else if text.contains("$") {
                            problems.append(
                                Diagnostic.build(
                                    "'\(text)' combines build settings; adhocbuild can only change a "
                                        + "literal or a single $(SETTING)", file: plistPath, keyPath: field.infoKey))
                            continue
                        } else {
                            add(VersionSite(location: .plist(path: plistPath, key: field.infoKey), value: text))
                            continue
                        }
                    case nil:
                        guard project.generatesInfoPlist(target: target, configuration: configuration) else { continue }
                        referenced = field.buildSetting
                    case let other?:
                        problems.append(
                            Diagnostic.build(
                                "must be a string, not \(other.kindWithArticle)", file: plistPath,
                                keyPath: field.infoKey))
                        continue
                    }
                } else if project.generatesInfoPlist(target: target, configuration: configuration) {
                    referenced = field.buildSetting
                } else {
                    continue
                }
                guard let referenced else { continue }
                if let site = settingSite(project, target, configuration, referenced) {
                    add(site)
                } else {
                    problems.append(
                        Diagnostic.build(
                            "\(target.name) (\(configuration.name)) uses $(\(referenced)), which no "
                                + "build configuration sets", file: project.path))
                }
            }
        }
        if !problems.isEmpty { throw Diagnostics(problems) }
        if sites.isEmpty { throw Diagnostic.build("no target has a \(field.label) to change", file: project.path) }
        return sites
    }

    private static func settingSite(
        _ project: XcodeProject, _ target: XcodeProject.Target,
        _ configuration: XcodeProject.Configuration, _ name: String
    ) -> VersionSite? {
        guard let (value, owner) = project.setting(name, target: target, configuration: configuration) else { return nil }
        let ownerName = owner.objectID == configuration.objectID ? target.name : "project"
        return VersionSite(
            location: .buildSetting(
                project: project.path, objectID: owner.objectID, configuration: owner.name,
                owner: ownerName, setting: name), value: value)
    }

    /// `NAME` when `text` is exactly `$(NAME)` or `${NAME}`.
    static func singleReference(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for (open, close) in [("$(", ")"), ("${", "}")] where trimmed.hasPrefix(open) && trimmed.hasSuffix(close) {
            let name = trimmed.dropFirst(2).dropLast()
            if !name.isEmpty && name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { return String(name) }
        }
        return nil
    }

    /// The Info.plists of an app bundle and of everything it embeds that carries versions:
    /// extensions (`PlugIns/*.appex`), Watch apps and their extensions, App Clips.
    public static func bundlePlists(in app: String) throws -> [String] {
        if FileIO.kind(of: app) == .file {
            throw Diagnostic.build(
                "is a file, not an app bundle; give the .app, an .ipa or .zip (with --output), or the project", file: app)
        }
        let info = (app as NSString).appendingPathComponent("Info.plist")
        guard FileManager.default.fileExists(atPath: info) else {
            throw Diagnostic.build("has no Info.plist; is it an app bundle?", file: app)
        }
        return [info] + NestedBundles.folders(in: app).map { ($0 as NSString).appendingPathComponent("Info.plist") }
    }

    /// The sites of `field` in plists (an app's, or a single file): each must hold a literal.
    public static func inPlists(_ paths: [String], field: VersionField, limits: PlistLimits = .default) throws -> [VersionSite] {
        var sites: [VersionSite] = []
        var problems: [Diagnostic] = []
        for path in paths {
            let plist: PlistValue
            plist = try PropertyList(contentsOf: path, limits: limits).value
            switch plist[PlistKeyPath([field.infoKey])] {
            case .string(let text)? where text.contains("$"):
                problems.append(
                    Diagnostic.build(
                        "refers to '\(text)'; change the project's build setting instead (--project)",
                        file: path, keyPath: field.infoKey))
            case .string(let text)?:
                sites.append(VersionSite(location: .plist(path: path, key: field.infoKey), value: text))
            case nil:
                problems.append(Diagnostic.build("has no \(field.infoKey)", file: path))
            case let other?:
                problems.append(Diagnostic.build("must be a string, not \(other.kindWithArticle)", file: path, keyPath: field.infoKey))
            }
        }
        if !problems.isEmpty { throw Diagnostics(problems) }
        return sites
    }
}
