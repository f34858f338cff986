import PlistKit
import SystemSupport

/// Which keys an environment may hold, wherever they are written: in a file, or with `--set KEYPATH=VALUE`.
///
/// Each check returns what is wrong (with "did you mean" when a known key is close), or nil.
public enum EnvironmentSchema {
    /// The sections of an environment.
    public static let sections = ["Settings", "Info", "Distribution", "Variables"]
    /// The keys of an environment's dictionary.
    public static let topLevelKeys = ["Inherits"] + sections
    /// What `Distribution` may hold: the page's title and subtitle, the base URL template, release notes,
    /// an icon, a provisioning profile, the store `release` uploads to (`s3://BUCKET/PREFIX/`), the
    /// testers' device list the profiles are checked against, and the enrollment page the install page links to.
    public static let distributionKeys = ["Title", "Subtitle", "BaseURL", "Notes", "Icon", "Profile", "Publish", "Devices", "EnrollURL"]

    /// A top-level key of an environment's file that is not `Inherits` or a section.
    public static func topLevelKeyProblem(_ key: String) -> String? {
        guard !topLevelKeys.contains(key) else { return nil }
        if let guess = Suggestion.closest(to: key, in: topLevelKeys, maximumDistance: 3) {
            return "unknown key '\(key)'; did you mean '\(guess)'?"
        }
        return "unknown key '\(key)'; an environment has \(topLevelKeys.joined(separator: ", "))"
    }

    /// A key of a section that the section does not allow: an unknown `Distribution` key, or an `Info` key
    /// that looks like a misspelt documented one. `Settings` and `Variables` are the app's own.
    public static func sectionKeyProblem(section: String, key: String) -> String? {
        switch section {
        case "Info":
            return InfoPlistKeys.problem(key)
        case "Distribution":
            guard !distributionKeys.contains(key) else { return nil }
            if let guess = Suggestion.closest(to: key, in: distributionKeys, maximumDistance: 3) {
                return "unknown Distribution key '\(key)'; did you mean '\(guess)'?"
            }
            return "unknown Distribution key '\(key)'; Distribution has \(distributionKeys.joined(separator: ", "))"
        default:
            return nil
        }
    }

    /// A `--set` key path: it must start with a section, and its key in that section must be allowed.
    public static func overrideProblem(_ keyPath: PlistKeyPath) -> String? {
        guard let section = keyPath.components.first, !section.isEmpty else {
            return "the key path is empty; start it with a section (\(sections.joined(separator: ", ")))"
        }
        guard sections.contains(section) else {
            if let guess = Suggestion.closest(to: section, in: sections, maximumDistance: 3) {
                return "unknown section '\(section)'; did you mean '\(guess)'?"
            }
            return "unknown section '\(section)'; the sections are \(sections.joined(separator: ", "))"
        }
        guard keyPath.components.count > 1 else {
            return "'\(section)' is a whole section; give a key in it ('\(section):KEY=VALUE')"
        }
        return sectionKeyProblem(section: section, key: keyPath.components[1])
    }
}
