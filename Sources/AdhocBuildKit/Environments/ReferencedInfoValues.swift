import Foundation
import PlistKit
import SystemSupport
import XcodeProjectEditing

/// Info.plist values that refer to a build setting (`$(PRODUCT_BUNDLE_IDENTIFIER)`) in a source tree.
///
/// `env apply --project` never writes a literal over such a reference, which would cut what derives
/// from it (an extension's bundle id from the app's): it sets the build setting in `project.pbxproj`
/// instead, for every configuration of the target that builds from the Info.plist, changing only the
/// value tokens. Extensions whose `PRODUCT_BUNDLE_IDENTIFIER` starts with the app's old id and a `.`
/// move to the new prefix with it. When the setting cannot be set (no project, no target building
/// from the Info.plist, a setting the project does not set, or one that also names the product), the
/// reference is left as it is and a warning says what was left and why.
struct ReferencedInfoValues {
    /// One top-level Info key whose current value is `$(SETTING)` and which the environment changes.
    struct Reference {
        var key: String
        var setting: String
        var written: String
        var newValue: String
    }

    /// Settings that name the product or are Xcode's own: setting them would rename the executable or
    /// module, or is not the project's to change, so a reference to one is left with a warning.
    static let notChangeable: Set<String> = [
        "PRODUCT_NAME", "EXECUTABLE_NAME", "TARGET_NAME", "PRODUCT_MODULE_NAME", "EXECUTABLE_PREFIX", "EXECUTABLE_SUFFIX",
        "CONFIGURATION", "DEVELOPMENT_LANGUAGE", "SRCROOT", "PROJECT_DIR", "PROJECT_NAME", "WRAPPER_EXTENSION"
    ]

    /// The environment's `Info` split into the values to merge into the plist and the references to
    /// set in the project instead.
    static func split(_ info: PlistDictionary, over original: PlistValue) -> (plain: PlistDictionary, references: [Reference]) {
        var plain = info
        var references: [Reference] = []
        for (key, value) in info {
            guard case .string(let newValue) = value, case .string(let written)? = original[PlistKeyPath([key])],
                written != newValue, let setting = VersionSites.singleReference(written)
            else { continue }
            plain[key] = nil
            references.append(Reference(key: key, setting: setting, written: written, newValue: newValue))
        }
        return (plain, references)
    }

    /// Sets each reference's build setting in the project at `location` for the targets that build
    /// from `infoPlist`; the write joins `files`. Returns the project file's change (nil when there is
    /// nothing to set) and a warning for each reference left as it was.
    static func apply(
        _ references: [Reference], infoPlist: String, project location: String, limits: PlistLimits,
        into files: inout FileTransaction
    ) throws -> (change: EnvironmentApplier.FileChange?, warnings: [Diagnostic]) {
        guard !references.isEmpty else { return (nil, []) }
        func left(_ reference: Reference, _ why: String) -> Diagnostic {
            Diagnostic.build(
                "\(reference.key) left as \(reference.written) (the environment gives '\(reference.newValue)'): \(why)", file: infoPlist,
                severity: .warning)
        }
        let project: XcodeProject
        do { project = try XcodeProject(at: location, limits: limits) } catch {
            let why = "\(error); set \(references.map(\.setting).joined(separator: ", ")) in the project yourself"
            return (nil, references.map { left($0, why) })
        }
        func canonical(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        let builds = project.targets.flatMap { target in
            target.configurations.filter { configuration in
                project.infoPlistPath(target: target, configuration: configuration).map(canonical) == canonical(infoPlist)
            }.map { (target, $0) }
        }
        guard !builds.isEmpty else {
            return (nil, references.map { left($0, "no target of \(project.path) builds from this Info.plist") })
        }
        var edits: [String: (range: Range<Int>, text: String, change: EnvironmentApplier.ValueChange)] = [:]
        var order: [String] = []
        var warnings: [Diagnostic] = []
        func edit(_ owner: XcodeProject.Configuration, ownerName: String, setting: String, from old: String, to new: String) {
            let id = owner.objectID + " " + setting
            guard old != new, edits[id] == nil, let range = owner.range(of: setting) else { return }
            order.append(id)
            edits[id] = (
                range, XcodeProject.token(new, quoted: owner.quoted(setting)),
                EnvironmentApplier.ValueChange(key: "\(ownerName) (\(owner.name)) \(setting)", old: .string(old), new: .string(new))
            )
        }
        func name(of owner: XcodeProject.Configuration, in target: XcodeProject.Target) -> String {
            target.configurations.contains { $0.objectID == owner.objectID } ? target.name : "project"
        }
        for reference in references {
            if Self.notChangeable.contains(reference.setting) {
                warnings.append(
                    left(
                        reference,
                        "Xcode sets \(reference.setting) itself, or it names the product, so adhocbuild does not change it; "
                            + "for the environment to set \(reference.key), write a value instead of the reference in the Info.plist"))
                continue
            }
            let unset = builds.filter { project.setting(reference.setting, target: $0.0, configuration: $0.1) == nil }
            if let (target, configuration) = unset.first {
                warnings.append(
                    left(reference, "\(project.path) does not set \(reference.setting) for \(target.name) (\(configuration.name))"))
                continue
            }
            for (target, configuration) in builds {
                guard let (raw, owner) = project.setting(reference.setting, target: target, configuration: configuration) else { continue }
                edit(owner, ownerName: name(of: owner, in: target), setting: reference.setting, from: raw, to: reference.newValue)
                guard reference.setting == "PRODUCT_BUNDLE_IDENTIFIER" else { continue }
                // Extensions (and anything else) named under the app's old id move with it.
                let oldID = (try? project.expand(raw, target: target, configuration: configuration)) ?? raw
                for other in project.targets where other.name != target.name {
                    for otherConfiguration in other.configurations where otherConfiguration.name == configuration.name {
                        guard
                            let (otherRaw, otherOwner) = project.setting(
                                reference.setting, target: other, configuration: otherConfiguration),
                            otherOwner.objectID != owner.objectID
                        else { continue }
                        let moved: String
                        if otherRaw.hasPrefix(raw + ".") {
                            moved = reference.newValue + otherRaw.dropFirst(raw.count)
                        } else if !otherRaw.contains("$"), otherRaw.hasPrefix(oldID + ".") {
                            moved = reference.newValue + otherRaw.dropFirst(oldID.count)
                        } else {
                            continue
                        }
                        edit(otherOwner, ownerName: name(of: otherOwner, in: other), setting: reference.setting, from: otherRaw, to: moved)
                    }
                }
            }
        }
        guard !order.isEmpty else {
            files.leaveUnchanged(project.path)
            let unchanged = references.count > warnings.count
            return (unchanged ? EnvironmentApplier.FileChange(path: project.path, action: .unchanged, values: []) : nil, warnings)
        }
        let chosen = order.map { edits[$0]! }
        files.write(Data(try project.replacing(chosen.map { ($0.range, $0.text) })), to: project.path)
        return (EnvironmentApplier.FileChange(path: project.path, action: .updated, values: chosen.map(\.change)), warnings)
    }
}
