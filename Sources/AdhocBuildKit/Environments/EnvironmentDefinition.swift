import PlistKit
import SystemSupport

/// One environment as written in its file, before inheritance and variables are applied.
///
/// The schema (a dictionary): `Inherits` (the name of another environment), `Settings` (the
/// app's runtime configuration, written as `environment.plist`), `Info` (Info.plist keys it
/// changes), `Distribution` (what publishing needs: title, subtitle, base URL template) and
/// `Variables` (strings that `$(NAME)` references can use).
public struct EnvironmentDefinition: Sendable {
    public static let sections = EnvironmentSchema.sections
    public static let knownKeys = EnvironmentSchema.topLevelKeys

    public var name: String
    /// The file it came from, as given (for messages).
    public var file: String
    /// Where its dictionary sits in the file: empty for one file per environment, the
    /// environment's name in a single `Environments.plist`.
    public var keyPathPrefix: PlistKeyPath
    /// `Settings`, `Info`, `Distribution` and `Variables` (without `Inherits`).
    public var body: PlistDictionary
    public var inherits: String?
    /// What is wrong with the file's schema (an unknown key, a section that is not a dictionary, a misspelt
    /// Info.plist key, …), each naming the file and key path. The part at fault is left out of `body`, so
    /// the rest can still be resolved and checked; resolving an environment that uses this file reports them.
    public var problems: [Diagnostic] = []
    /// False when the file could not be read or parsed: the environment is empty, its one problem says
    /// why, and it takes no part in comparing the environments' keys.
    public internal(set) var wasRead = true

    /// Reads one environment's dictionary, checking the schema; only a value that is not a dictionary at
    /// all throws, every other mistake is collected in `problems`.
    ///
    /// `lenient` is for the single-file `Environments.plist` form: a dictionary with none of the
    /// schema's keys is taken as the environment's `Settings`.
    public init(
        name: String, file: String, keyPathPrefix: PlistKeyPath = .root, value: PlistValue,
        lenient: Bool = false
    ) throws {
        self.name = name
        self.file = file
        self.keyPathPrefix = keyPathPrefix
        guard case .dictionary(var dict) = value else {
            throw Diagnostic.build(
                "an environment must be a dictionary, not \(value.kindWithArticle)", file: file,
                keyPath: keyPathPrefix.description)
        }
        if lenient && !dict.keys.contains(where: EnvironmentDefinition.knownKeys.contains) {
            var wrapped = PlistDictionary()
            wrapped["Settings"] = .dictionary(dict)
            dict = wrapped
        }
        var found: [Diagnostic] = []
        func problem(_ message: String, at keyPath: PlistKeyPath) {
            found.append(
                Diagnostic.build(message, file: file, keyPath: PlistKeyPath(keyPathPrefix.components + keyPath.components).description))
        }
        for key in dict.keys {
            if let message = EnvironmentSchema.topLevelKeyProblem(key) {
                problem(message, at: [key])
                dict.removeValue(forKey: key)
            }
        }
        var parent: String?
        if let inherits = dict.removeValue(forKey: "Inherits") {
            if case .string(let name) = inherits, !name.isEmpty {
                parent = name
            } else {
                problem("Inherits must name an environment (a string), not \(inherits.kindWithArticle)", at: ["Inherits"])
            }
        }
        for section in EnvironmentDefinition.sections {
            guard let content = dict[section] else { continue }
            guard case .dictionary(var sectionDict) = content else {
                problem("\(section) must be a dictionary, not \(content.kindWithArticle)", at: [section])
                dict.removeValue(forKey: section)
                continue
            }
            for (key, keyValue) in sectionDict {
                if let message = EnvironmentSchema.sectionKeyProblem(section: section, key: key) {
                    problem(message, at: [section, key])
                    sectionDict.removeValue(forKey: key)
                } else if section == "Variables" && keyValue.stringValue == nil {
                    problem("a variable must be a string, not \(keyValue.kindWithArticle)", at: [section, key])
                    sectionDict.removeValue(forKey: key)
                }
            }
            dict[section] = .dictionary(sectionDict)
        }
        body = dict
        inherits = parent
        problems = found
    }
}
