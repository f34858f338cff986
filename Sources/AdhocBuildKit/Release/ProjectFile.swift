import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild.plist` at a project's top: the defaults that make a CI step one short line
/// (`adhocbuild release --env staging`). Command-line flags override every key.
///
/// Keys: `Environments` (folder), `App` (the .app, .xcarchive or .ipa), `BaseURL` (a template),
/// `Notes` (a file), `Out` (the dist folder), `Profile` (a provisioning profile), `Title` (the
/// index's title). Relative paths are taken from the file's folder.
public struct ProjectFile: Sendable {
    public static let defaultName = "adhocbuild.plist"
    public static let keys = ["Environments", "App", "BaseURL", "Icon", "Notes", "Out", "Profile", "Title"]

    public var path: String
    public var values: [String: String]

    /// Reads `path`, or returns nil when it is the default name and does not exist.
    public static func load(_ path: String?) throws -> ProjectFile? {
        let location = path ?? defaultName
        guard FileManager.default.fileExists(atPath: location) else {
            if path != nil { throw AdhocBuildError("no such project file", file: location) }
            return nil
        }
        let value: PlistValue
        value = try PropertyList(contentsOf: location).value
        guard case .dictionary(let dict) = value else {
            throw AdhocBuildError("a project file must be a dictionary", file: location, keyPath: "")
        }
        var values: [String: String] = [:]
        let folder = (location as NSString).deletingLastPathComponent
        for (key, item) in dict {
            guard keys.contains(key) else {
                let guess = Suggestion.closest(to: key, in: keys, maximumDistance: 3).map { "; did you mean '\($0)'?" } ?? ""
                throw AdhocBuildError("unknown key '\(key)'\(guess)", file: location, keyPath: key)
            }
            guard case .string(let text) = item else {
                throw AdhocBuildError("must be a string, not \(item.kindWithArticle)", file: location, keyPath: key)
            }
            let isPath = key != "BaseURL" && key != "Title"
            values[key] = isPath && !text.hasPrefix("/") && !folder.isEmpty ? (folder as NSString).appendingPathComponent(text) : text
        }
        return ProjectFile(path: location, values: values)
    }
}
