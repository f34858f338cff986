import Foundation
import PlistKit
import SystemSupport

/// `adhocbuild.plist` at a project's top (found from a subfolder as git finds its repository): the defaults that make a CI step one short line
/// (`adhocbuild release --env staging`). Command-line flags override every key.
///
/// Keys: `Environments` (folder), `App` (the .app, .xcarchive or .ipa), `BaseURL` (a template),
/// `Notes` (a file), `Out` (the dist folder), `Profile` (a provisioning profile), `Title` (the
/// index's title), `Devices` (the testers' device list), `EnrollURL` (the enrollment page), and for re-signing (``SigningRequest``) `SignIdentity` (a .p12), `SignPasswordEnv`
/// (a variable's name) or `SignPasswordFile`, `SignProfile` (the app's), `SignProfiles` (a dictionary
/// of bundle id to profile) and `SignEntitlements`. Relative paths are taken from the file's folder.
public struct ProjectFile: Sendable {
    public static let defaultName = "adhocbuild.plist"
    public static let keys = [
        "Environments", "App", "BaseURL", "Icon", "Notes", "Out", "Profile", "Publish", "Title", "SignIdentity", "SignPasswordEnv",
        "SignPasswordFile", "SignProfile", "SignEntitlements", "Devices", "EnrollURL"
    ]
    /// The keys whose value is a dictionary of strings (paths), not a string.
    public static let dictionaryKeys = ["SignProfiles"]
    /// The string keys that are not paths.
    static let textKeys: Set<String> = ["BaseURL", "Publish", "Title", "SignPasswordEnv", "EnrollURL"]

    public var path: String
    public var values: [String: String]
    /// The dictionary keys' values, their paths taken from the file's folder.
    public var dictionaries: [String: [String: String]] = [:]

    /// Reads `path`; without one, the `adhocbuild.plist` that ``ProjectFileSearch`` finds from the
    /// current folder upwards, or nil when there is none.
    public static func load(_ path: String?, limits: PlistLimits = .default) throws -> ProjectFile? {
        guard let location = path ?? ProjectFileSearch().found else { return nil }
        guard FileManager.default.fileExists(atPath: location) else { throw Diagnostic.build("no such project file", file: location) }
        let value: PlistValue
        value = try PropertyList(contentsOf: location, limits: limits).value
        guard case .dictionary(let dict) = value else {
            throw Diagnostic.build("a project file must be a dictionary", file: location, keyPath: "")
        }
        var values: [String: String] = [:]
        var dictionaries: [String: [String: String]] = [:]
        let folder = (location as NSString).deletingLastPathComponent
        func resolved(_ text: String) -> String {
            !text.hasPrefix("/") && !folder.isEmpty ? (folder as NSString).appendingPathComponent(text) : text
        }
        for (key, item) in dict {
            if dictionaryKeys.contains(key) {
                guard case .dictionary(let entries) = item else {
                    throw Diagnostic.build("must be a dictionary, not \(item.kindWithArticle)", file: location, keyPath: key)
                }
                var paths: [String: String] = [:]
                for (name, entry) in entries {
                    guard case .string(let text) = entry else {
                        throw Diagnostic.build("must be a string, not \(entry.kindWithArticle)", file: location, keyPath: "\(key):\(name)")
                    }
                    paths[name] = resolved(text)
                }
                dictionaries[key] = paths
                continue
            }
            guard keys.contains(key) else {
                let known = keys + dictionaryKeys
                let guess = Suggestion.closest(to: key, in: known, maximumDistance: 3).map { "; did you mean '\($0)'?" } ?? ""
                throw Diagnostic.build("unknown key '\(key)'\(guess)", file: location, keyPath: key)
            }
            guard case .string(let text) = item else {
                throw Diagnostic.build("must be a string, not \(item.kindWithArticle)", file: location, keyPath: key)
            }
            values[key] = textKeys.contains(key) ? text : resolved(text)
        }
        return ProjectFile(path: location, values: values, dictionaries: dictionaries)
    }
}
