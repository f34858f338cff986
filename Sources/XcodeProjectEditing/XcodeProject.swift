import Foundation
import PlistKit
import SystemSupport

/// The parts of an Xcode project that versions live in: targets, their build configurations
/// and build settings, read from `project.pbxproj` with each value's byte range kept so it
/// can be changed without touching any other byte of the file.
public struct XcodeProject: Sendable {
    /// The `project.pbxproj` file.
    public let path: String
    /// The folder holding the `.xcodeproj` (Xcode's `SRCROOT`).
    public let sourceRoot: String
    /// The file's bytes as read.
    public let bytes: [UInt8]
    /// Where the text the value ranges count in starts in `bytes`: 3 after a UTF-8 byte-order mark.
    let textStart: Int
    /// True for a UTF-16 file, whose ranges count in its UTF-8 conversion: read, never edited.
    let isUTF16: Bool
    public let targets: [Target]
    /// The project-level configurations, whose settings targets inherit.
    public let projectConfigurations: [Configuration]

    /// One build configuration (`Debug`, `Release`, …) of a target or of the project.
    public struct Configuration: Sendable {
        public var name: String
        public var objectID: String
        public var settings: PlistDictionary
        /// The `buildSettings` dictionary node, for its values' byte ranges.
        public var settingsNode: OpenStepNode?

        /// The byte range of a setting's value, when this configuration sets it.
        public func range(of setting: String) -> Range<Int>? { settingsNode?.node(at: PlistKeyPath([setting]))?.range }

        public func quoted(_ setting: String) -> Bool {
            if case .string(_, let quoted)? = settingsNode?.node(at: PlistKeyPath([setting]))?.kind { return quoted }
            return false
        }
    }

    public struct Target: Sendable {
        public var name: String
        public var productType: String?
        public var configurations: [Configuration]
    }

    /// Opens a project: a folder holding one `.xcodeproj`, a `.xcodeproj`, or a `project.pbxproj`,
    /// read within `limits` (the `ADHOCBUILD_MAX_PLIST_*` values the commands pass).
    public init(at location: String, limits: PlistLimits = .default) throws {
        let pbxproj = try XcodeProject.locate(location)
        path = pbxproj
        let xcodeproj = (pbxproj as NSString).deletingLastPathComponent
        sourceRoot = (xcodeproj as NSString).deletingLastPathComponent
        let data = try FileIO.read(pbxproj)
        bytes = [UInt8](data)
        textStart = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        isUTF16 = bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
        let root = try inFile(pbxproj, only: PlistProblem.self) { try OpenStepPlistReader(limits: limits).readDocument(data) }
        guard case .dictionary(let objectPairs)? = root.node(at: "objects")?.kind,
            case .string(let rootID, _)? = root.node(at: "rootObject")?.kind
        else {
            throw Diagnostic.build("is not an Xcode project (no objects or rootObject)", file: pbxproj)
        }
        var objects: [String: OpenStepNode] = [:]
        for pair in objectPairs { if case .string(let id, _) = pair.key.kind { objects[id] = pair.value } }
        func string(_ node: OpenStepNode?, _ key: String) -> String? {
            if case .string(let text, _)? = node?.node(at: PlistKeyPath([key]))?.kind { return text }
            return nil
        }
        func ids(_ node: OpenStepNode?, _ key: String) -> [String] {
            guard case .array(let items)? = node?.node(at: PlistKeyPath([key]))?.kind else { return [] }
            return items.compactMap { if case .string(let id, _) = $0.kind { return id } else { return nil } }
        }
        func configurations(listID: String?) -> [Configuration] {
            guard let listID, let list = objects[listID] else { return [] }
            return ids(list, "buildConfigurations").compactMap { id in
                guard let object = objects[id], let name = string(object, "name") else { return nil }
                let settingsNode = object.node(at: "buildSettings")
                return Configuration(
                    name: name, objectID: id, settings: settingsNode?.value.dictionaryValue ?? PlistDictionary(),
                    settingsNode: settingsNode)
            }
        }
        let project = objects[rootID]
        projectConfigurations = configurations(listID: string(project, "buildConfigurationList"))
        targets = ids(project, "targets").compactMap { id in
            guard let target = objects[id], string(target, "isa") == "PBXNativeTarget" else { return nil }
            return Target(
                name: string(target, "name") ?? id, productType: string(target, "productType"),
                configurations: configurations(listID: string(target, "buildConfigurationList")))
        }
    }

    static func locate(_ location: String) throws -> String {
        if location.hasSuffix(".pbxproj") { return location }
        if location.hasSuffix(".xcodeproj") { return (location as NSString).appendingPathComponent("project.pbxproj") }
        guard FileIO.kind(of: location) == .folder else {
            throw Diagnostic.build("no such project folder", file: location)
        }
        let projects = (try FileIO.names(in: location)).filter { $0.hasSuffix(".xcodeproj") }.sorted()
        switch projects.count {
        case 0: throw Diagnostic.build("holds no .xcodeproj", file: location)
        case 1: return ((location as NSString).appendingPathComponent(projects[0]) as NSString).appendingPathComponent("project.pbxproj")
        default: throw Diagnostic.build("holds \(projects.count) projects (\(projects.joined(separator: ", "))); name one", file: location)
        }
    }

    /// A setting as a target configuration sees it: its own value, else the project's
    /// configuration of the same name. Returns the value and the configuration that sets it.
    public func setting(_ name: String, target: Target, configuration: Configuration) -> (String, Configuration)? {
        if let value = configuration.settings[name]?.stringValue { return (value, configuration) }
        if let projectConfiguration = projectConfigurations.first(where: { $0.name == configuration.name }),
            let value = projectConfiguration.settings[name]?.stringValue
        {
            return (value, projectConfiguration)
        }
        return nil
    }

    /// Expands `$(…)` in `text` with the target configuration's settings and Xcode's built-ins.
    public func expand(_ text: String, target: Target, configuration: Configuration) throws -> String {
        let builtIns = [
            "SRCROOT": sourceRoot, "PROJECT_DIR": sourceRoot, "TARGET_NAME": target.name,
            "CONFIGURATION": configuration.name
        ]
        return try BuildSettingExpander { name in
            if let value = self.setting(name, target: target, configuration: configuration)?.0 { return value }
            if name == "PRODUCT_NAME" { return target.name }
            return builtIns[name]
        }.expand(text)
    }

    /// The Info.plist a target configuration builds from, or nil when Xcode generates it.
    public func infoPlistPath(target: Target, configuration: Configuration) -> String? {
        guard let raw = setting("INFOPLIST_FILE", target: target, configuration: configuration)?.0, !raw.isEmpty else { return nil }
        let expanded = (try? expand(raw, target: target, configuration: configuration)) ?? raw
        return expanded.hasPrefix("/") ? expanded : (sourceRoot as NSString).appendingPathComponent(expanded)
    }

    /// Whether Xcode writes this target configuration's Info.plist from build settings.
    public func generatesInfoPlist(target: Target, configuration: Configuration) -> Bool {
        setting("GENERATE_INFOPLIST_FILE", target: target, configuration: configuration)?.0 == "YES"
    }

    /// The project file's bytes with `replacements` made (each a byte range of the text and its
    /// new token); every other byte stays as it was, a UTF-8 byte-order mark included. A UTF-16
    /// file (which Xcode never writes) is refused rather than rewritten in another encoding.
    public func replacing(_ replacements: [(range: Range<Int>, text: String)]) throws -> [UInt8] {
        guard !isUTF16 else {
            throw Diagnostic.build("is UTF-16 text, which adhocbuild reads but does not edit; save it as UTF-8 (as Xcode does)", file: path)
        }
        var result = bytes
        for replacement in replacements.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            let range = (replacement.range.lowerBound + textStart)..<(replacement.range.upperBound + textStart)
            result.replaceSubrange(range, with: Array(replacement.text.utf8))
        }
        return result
    }

    /// A value as the pbxproj writes it: bare when it can be, else quoted and escaped.
    public static func token(_ value: String, quoted: Bool) -> String {
        if !quoted && !value.isEmpty && value.utf8.allSatisfy({ OpenStepPlistReader.isUnquotedCharacter($0) }) { return value }
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
