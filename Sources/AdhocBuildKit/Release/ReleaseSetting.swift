/// Where one of `release`'s settings came from. The levels, strongest first: a flag (a CI preset
/// asked for with flags counts as one), the environment's `Distribution`, the project file, a
/// preset of the CI server the release runs on (detected, not asked for), and the built-in default.
public enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
    /// A command-line flag, or the flags of a CI preset (`--ci jenkins`, the TeamCity flags).
    case flag(String)
    /// The resolved environment: the file (or `--set`) and key path that set the value.
    case environment(file: String, keyPath: String)
    /// A key of the project file.
    case projectFile(file: String, key: String)
    /// The artifact URL of the CI server detected from the process environment.
    case ciPreset(String)
    /// A variable of the process environment that a CI secret store sets (`ADHOCBUILD_SIGN_IDENTITY`),
    /// at the level of the detected CI server.
    case processEnvironment(String)
    /// What `release` uses when nothing else gives a value.
    case builtIn
    /// Found by looking for it (the project file, from the current folder upwards).
    case search(String)
    /// Worked out from another setting (the base URL from the store `--publish` names).
    case derived(String)

    public var description: String {
        switch self {
        case .flag(let flag): return flag
        case .environment(let file, let keyPath):
            return file == EnvironmentResolver.overrideSource ? "--set \(keyPath)" : "\(file) at '\(keyPath)'"
        case .projectFile(let file, let key): return "\(file) at '\(key)'"
        case .ciPreset(let preset): return preset
        case .processEnvironment(let name): return "$\(name)"
        case .builtIn: return "default"
        case .search(let how): return how
        case .derived(let how): return how
        }
    }
}

/// One of `release`'s settings as planned: its value (nil when nothing set it and it has no
/// default) and where that value came from.
public struct ReleaseSetting: Sendable, Equatable {
    public var name: String
    public var value: String?
    public var origin: SettingOrigin
    /// What happens when nothing sets it ("the bundle's icon is used").
    public var whenUnset: String?
    /// What is used instead of the value, or of what happens without one, when another setting wins
    /// (the signing profile is embedded, not the profile to embed).
    public var supersededBy: String?

    public init(name: String, value: String?, origin: SettingOrigin, whenUnset: String? = nil) {
        self.name = name
        self.value = value
        self.origin = origin
        self.whenUnset = whenUnset
    }

    /// Where the value came from, or what happens without one; and what is used instead, when something is.
    public var originText: String {
        guard value != nil else { return "not set" + ((supersededBy ?? whenUnset).map { ": " + $0 } ?? "") }
        return "from " + origin.description + (supersededBy.map { "; not used: " + $0 } ?? "")
    }
}

/// Picks each setting from its candidates, strongest first, and remembers the choice for `--explain`.
struct SettingChooser {
    /// A possible value and where it would come from.
    typealias Candidate = (value: String?, origin: SettingOrigin)

    private(set) var chosen: [ReleaseSetting] = []

    /// The first candidate with a value, or `fallback` (the built-in default), recorded under `name`;
    /// `whenUnset` says what happens when there is neither.
    @discardableResult
    mutating func choose(_ name: String, _ candidates: [Candidate], fallback: String? = nil, whenUnset: String? = nil) -> String? {
        let pick = candidates.first { $0.value != nil } ?? (fallback, .builtIn)
        chosen.append(ReleaseSetting(name: name, value: pick.value, origin: pick.origin, whenUnset: whenUnset))
        return pick.value
    }

    /// Records that what `name` says is not what is used: `instead` is.
    mutating func supersede(_ name: String, by instead: String) {
        guard let index = chosen.lastIndex(where: { $0.name == name }) else { return }
        chosen[index].supersededBy = instead
    }
}

extension ReleaseSetting {
    /// The order in which `release` takes its settings, as `--explain` and the README say it.
    public static let precedence = "a flag > the environment's Distribution > adhocbuild.plist > the detected CI server > the default"

    /// One aligned line per setting: name, value (or "-"), and where it came from.
    public static func explanation(_ settings: [ReleaseSetting]) -> [String] {
        let nameWidth = settings.map(\.name.count).max() ?? 0
        let valueWidth = min(60, settings.map { ($0.value ?? "-").count }.max() ?? 0)
        return ["Settings (\(precedence)):"]
            + settings.map { setting in
                let value = setting.value ?? "-"
                let origin = setting.originText
                return "  " + setting.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                    + (value.count < valueWidth ? value.padding(toLength: valueWidth, withPad: " ", startingAt: 0) : value) + "  " + origin
            }
    }
}
