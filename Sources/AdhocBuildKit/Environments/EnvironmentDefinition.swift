import PlistKit
import SystemSupport

/// One environment as written in its file, before inheritance and variables are applied.
///
/// The schema (a dictionary): `Inherits` (the name of another environment), `Settings` (the
/// app's runtime configuration, written as `environment.plist`), `Info` (Info.plist keys it
/// changes), `Distribution` (what publishing needs: title, subtitle, base URL template) and
/// `Variables` (strings that `$(NAME)` references can use).
public struct EnvironmentDefinition: Sendable {
    public static let sections = ["Settings", "Info", "Distribution", "Variables"]
    public static let knownKeys = ["Inherits"] + sections

    public var name: String
    /// The file it came from, as given (for messages).
    public var file: String
    /// Where its dictionary sits in the file: empty for one file per environment, the
    /// environment's name in a single `Environments.plist`.
    public var keyPathPrefix: PlistKeyPath
    /// `Settings`, `Info`, `Distribution` and `Variables` (without `Inherits`).
    public var body: PlistDictionary
    public var inherits: String?

    /// Reads one environment's dictionary, checking the schema.
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
            throw AdhocBuildError(
                "an environment must be a dictionary, not \(value.kindWithArticle)", file: file,
                keyPath: keyPathPrefix.description)
        }
        if lenient && !dict.keys.contains(where: EnvironmentDefinition.knownKeys.contains) {
            var wrapped = PlistDictionary()
            wrapped["Settings"] = .dictionary(dict)
            dict = wrapped
        }
        for key in dict.keys where !EnvironmentDefinition.knownKeys.contains(key) {
            var message = "unknown key '\(key)'; an environment has \(EnvironmentDefinition.knownKeys.joined(separator: ", "))"
            if let guess = Suggestion.closest(to: key, in: EnvironmentDefinition.knownKeys, maximumDistance: 3) {
                message = "unknown key '\(key)'; did you mean '\(guess)'?"
            }
            throw AdhocBuildError(message, file: file, keyPath: keyPathPrefix.appending(key).description)
        }
        if let inherits = dict["Inherits"] {
            guard case .string(let parent) = inherits, !parent.isEmpty else {
                throw AdhocBuildError(
                    "Inherits must name an environment (a string), not \(inherits.kindWithArticle)",
                    file: file, keyPath: keyPathPrefix.appending("Inherits").description)
            }
            self.inherits = parent
            dict.removeValue(forKey: "Inherits")
        }
        for section in EnvironmentDefinition.sections {
            guard let content = dict[section] else { continue }
            guard case .dictionary(let sectionDict) = content else {
                throw AdhocBuildError(
                    "\(section) must be a dictionary, not \(content.kindWithArticle)", file: file,
                    keyPath: keyPathPrefix.appending(section).description)
            }
            if section == "Variables" {
                for (variable, variableValue) in sectionDict where variableValue.stringValue == nil {
                    throw AdhocBuildError(
                        "a variable must be a string, not \(variableValue.kindWithArticle)", file: file,
                        keyPath: keyPathPrefix.appending(section).appending(variable).description)
                }
            }
        }
        body = dict
    }
}
