import Foundation
import IPAKit
import PlistKit
import SystemSupport
import XcodeProjectEditing

/// `version show`: the marketing version and build number of a project (per target and
/// build configuration, with `$(…)` references resolved) or of an app bundle and its
/// extensions, or of one plist.
public struct VersionReport: Sendable {
    public struct Row: Equatable, Sendable {
        /// The target and configuration (`ShoutOut (Release)`) or the bundle's path.
        public var name: String
        public var bundleIdentifier: String?
        public var marketingVersion: String?
        public var buildNumber: String?
        /// Where the values come from: the Info.plist, or the build settings for a generated one.
        public var source: String

        public init(name: String, bundleIdentifier: String?, marketingVersion: String?, buildNumber: String?, source: String) {
            self.name = name
            self.bundleIdentifier = bundleIdentifier
            self.marketingVersion = marketingVersion
            self.buildNumber = buildNumber
            self.source = source
        }
    }

    public var rows: [Row]

    public init(rows: [Row]) { self.rows = rows }

    /// Reads a source tree's project.
    public init(project location: String, limits: PlistLimits = .default) throws {
        let project = try XcodeProject(at: location, limits: limits)
        var rows: [Row] = []
        for target in project.targets {
            for configuration in target.configurations {
                func resolve(_ field: VersionField, _ plist: PlistValue?) -> String? {
                    let raw =
                        plist?[PlistKeyPath([field.infoKey])]?.stringValue
                        ?? (project.generatesInfoPlist(target: target, configuration: configuration) ? "$(\(field.buildSetting))" : nil)
                    guard let raw else { return nil }
                    return (try? project.expand(raw, target: target, configuration: configuration)) ?? raw
                }
                let plistPath = project.infoPlistPath(target: target, configuration: configuration)
                let plist = plistPath.flatMap { try? PropertyList(contentsOf: $0, limits: limits).value }
                let identifier =
                    plist?["CFBundleIdentifier"]?.stringValue
                    ?? project.setting("PRODUCT_BUNDLE_IDENTIFIER", target: target, configuration: configuration)?.0
                rows.append(
                    Row(
                        name: "\(target.name) (\(configuration.name))",
                        bundleIdentifier: identifier.map { (try? project.expand($0, target: target, configuration: configuration)) ?? $0 },
                        marketingVersion: resolve(.marketing, plist), buildNumber: resolve(.build, plist),
                        source: plist != nil ? plistPath! : plistPath.map { "\($0) (missing)" } ?? "build settings"))
            }
        }
        self.init(rows: rows)
    }

    /// Reads plists: an app's and its extensions', or a single file.
    public init(plists paths: [String], limits: PlistLimits = .default) throws {
        rows = try paths.map { path in
            let plist: PlistValue
            plist = try PropertyList(contentsOf: path, limits: limits).value
            return Row(
                name: path, bundleIdentifier: plist["CFBundleIdentifier"]?.stringValue,
                marketingVersion: plist["CFBundleShortVersionString"]?.stringValue,
                buildNumber: plist["CFBundleVersion"]?.stringValue, source: path)
        }
    }

    /// Reads an app: a bundle folder and its extensions' plists, or a packaged app (`.ipa`) in place.
    public init(app path: String, limits: ReaderLimits = .standard) throws {
        if FileIO.kind(of: path) == .file {
            try self.init(package: path, limits: limits)
        } else {
            try self.init(plists: try VersionSites.bundlePlists(in: path), limits: limits.plist)
        }
    }

    /// Reads a packaged app in place (an `.ipa`, through libzip): the app's Info.plist and those of
    /// the bundles nested in it, each named by its path inside (`Payload/App.app/Info.plist`).
    public init(package path: String, limits: ReaderLimits = .standard) throws {
        let package = try AppPackage.open(path, limits: limits)
        func rows(_ bundle: AppBundle) -> [Row] {
            let name = bundle.root + "/Info.plist"
            return [
                Row(
                    name: name, bundleIdentifier: bundle.bundleIdentifier, marketingVersion: bundle.shortVersion,
                    buildNumber: bundle.buildVersion, source: path + ":" + name)
            ] + bundle.nested.flatMap(rows)
        }
        self.init(rows: rows(package.app))
    }

    /// Aligned columns for people, one line per row.
    public var lines: [String] {
        let header = ("", "bundle id", "version", "build")
        let cells = [header] + rows.map { ($0.name, $0.bundleIdentifier ?? "-", $0.marketingVersion ?? "-", $0.buildNumber ?? "-") }
        let widths = [cells.map(\.0.count).max()!, cells.map(\.1.count).max()!, cells.map(\.2.count).max()!]
        return cells.map { row in
            row.0.padding(toLength: widths[0] + 2, withPad: " ", startingAt: 0)
                + row.1.padding(toLength: widths[1] + 2, withPad: " ", startingAt: 0)
                + row.2.padding(toLength: widths[2] + 2, withPad: " ", startingAt: 0) + row.3
        }
    }

    /// ``lines``, each ending with a newline.
    public var text: String { lines.map { $0 + "\n" }.joined() }

    /// The rows as a plist value, for `--json`.
    public var value: PlistValue {
        .array(
            rows.map { row in
                var dict = PlistDictionary()
                dict["name"] = .string(row.name)
                if let id = row.bundleIdentifier { dict["bundleIdentifier"] = .string(id) }
                if let version = row.marketingVersion { dict["marketingVersion"] = .string(version) }
                if let build = row.buildNumber { dict["buildNumber"] = .string(build) }
                dict["source"] = .string(row.source)
                return .dictionary(dict)
            })
    }
}
