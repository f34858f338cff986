import Foundation
import PlistKit
import SystemSupport

/// The `Distribution` values an environment gives `release` (base URL, notes, icon, profile), with
/// the file and key path that set each, for planning a release before it runs.
///
/// The environment is resolved leniently here: the pipeline's first step resolves it again with
/// every check and reports its problems as that step's failure. Only an environment that cannot be
/// merged at all leaves `failure` set, so a plan that lacks a value it needs can say why.
struct EnvironmentDistribution {
    private var values: [String: SettingChooser.Candidate] = [:]
    /// Why the environment could not be read, when it could not.
    private(set) var failure: (any Error)?

    init(
        environment: String, folder: String, overrides: [(keyPath: PlistKeyPath, value: String)], settings: [String: String],
        processEnvironment: [String: String], variablePolicy: ProcessVariablePolicy, limits: PlistLimits
    ) throws {
        let store: EnvironmentStore
        do { store = try EnvironmentStore(at: folder, limits: limits) } catch {
            failure = error
            return
        }
        let resolver = EnvironmentResolver(
            store: store, overrides: overrides, settings: settings, processEnvironment: processEnvironment, variablePolicy: variablePolicy)
        let (resolved, found) = resolver.resolveCollectingProblems(environment)
        guard let resolved else {
            failure = Diagnostics(found.filter { $0.severity == .error })
            return
        }
        for key in ReleaseRequest.environmentKeys {
            let keyPath = PlistKeyPath(["Distribution", key])
            guard let value = resolved.distribution[key] else { continue }
            let source =
                resolved.leaf(at: keyPath).map { (file: $0.file, keyPath: $0.sourceKeyPath) } ?? (file: store.location, keyPath: keyPath)
            guard case .string(var text) = value else {
                throw Diagnostic.build(
                    "must be a string, not \(value.kindWithArticle)", file: source.file, keyPath: source.keyPath.description)
            }
            if !ReleaseRequest.urlKeys.contains(key) && !text.hasPrefix("/") && source.file != EnvironmentResolver.overrideSource {
                let base = (source.file as NSString).deletingLastPathComponent
                if !base.isEmpty { text = (base as NSString).appendingPathComponent(text) }
            }
            values[key] = (text, .environment(file: source.file, keyPath: source.keyPath.description))
        }
    }

    /// The environment's value for `key` as a candidate (no value when the environment has none).
    func candidate(_ key: String) -> SettingChooser.Candidate {
        values[key] ?? (nil, .environment(file: "", keyPath: "Distribution:" + key))
    }
}
