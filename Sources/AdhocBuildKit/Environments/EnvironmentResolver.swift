import PlistEditing
import PlistKit
import SystemSupport
import XcodeProjectEditing

/// Resolves environments: Base, then the inherited chain, then the environment, then
/// `--set KEYPATH=VALUE` overrides, merged deeply; then every string expanded for `$(VAR)`.
///
/// Variables, strongest first: `--setting NAME=VALUE`, the environment's own `Variables`, the
/// built-ins `CONFIGURATION` (the environment's name) and `BUILD_NUMBER` (from the CI's
/// counter: `BUILD_NUMBER`, `GITHUB_RUN_NUMBER` or `CI_PIPELINE_IID`), then the process
/// environment, only as far as `variablePolicy` allows: a reference to a secret's name, or to a
/// variable that is set but not allowed, is an error naming the file, the key path and the variable.
public struct EnvironmentResolver: Sendable {
    public var store: EnvironmentStore
    /// `--set` overrides, applied in order after the environment.
    public var overrides: [(keyPath: PlistKeyPath, value: String)]
    /// `--setting` variables.
    public var settings: [String: String]
    public var processEnvironment: [String: String]
    /// Which variables of `processEnvironment` may be read (`--allow-env`, and the secrets never read).
    public var variablePolicy: ProcessVariablePolicy

    public static let overrideSource = "--set"

    public init(
        store: EnvironmentStore, overrides: [(keyPath: PlistKeyPath, value: String)] = [],
        settings: [String: String] = [:], processEnvironment: [String: String] = [:],
        variablePolicy: ProcessVariablePolicy = ProcessVariablePolicy()
    ) {
        self.store = store
        self.overrides = overrides
        self.settings = settings
        self.processEnvironment = processEnvironment
        self.variablePolicy = variablePolicy
    }

    /// Resolves `name`, or throws its first problem.
    public func resolve(_ name: String) throws -> ResolvedEnvironment {
        let (resolved, problems) = resolveCollectingProblems(name)
        if let first = problems.first(where: { $0.severity == .error }) { throw first }
        return resolved!
    }

    /// Resolves `name` for writing it somewhere (`env apply`, `release`): with every override applied,
    /// it must pass the checks `env check` makes of it (valid bundle identifier, the same `Settings`
    /// keys as every other environment, …). Throws every error together; returns the warnings
    /// (plain http URLs, …) beside the environment.
    public func resolveForApplying(_ name: String) throws -> (environment: ResolvedEnvironment, warnings: [Diagnostic]) {
        let (resolved, problems) = resolveCollectingProblems(name)
        var all = problems + (resolved.map(EnvironmentChecker.checkValues) ?? [])
        if let resolved { all += EnvironmentChecker(resolver: self).consistencyProblems(of: resolved.name) }
        let errors = all.filter { $0.severity == .error }
        guard let resolved, errors.isEmpty else { throw Diagnostics(errors) }
        return (resolved, all.filter { $0.severity == .warning })
    }

    /// Resolves `name`, collecting every problem (each undefined variable, say) instead of
    /// stopping at the first. The environment is nil when it could not be merged at all.
    public func resolveCollectingProblems(_ name: String) -> (ResolvedEnvironment?, [Diagnostic]) {
        let (resolved, findings) = resolveCollectingFindings(name)
        return (resolved, findings.map(\.error))
    }

    /// A problem found while resolving, with the variable when it is an undefined `$(NAME)`, so that
    /// `env check` can report one line for a reference every environment misses.
    struct Finding {
        var error: Diagnostic
        var undefinedVariable: String?
    }

    /// The message for `$(variable)`, undefined in `environments`.
    static func undefinedMessage(_ variable: String, in environments: [String]) -> String {
        "$(\(variable)) is not defined in \(environments.joined(separator: ", ")) (define it in Variables, "
            + "give it with --setting \(variable)=VALUE, or add :default=VALUE)"
    }

    /// The problems of an override before it is applied: the section and key it names.
    func overrideProblems() -> [Diagnostic] {
        overrides.compactMap { keyPath, text in
            EnvironmentSchema.overrideProblem(keyPath).map {
                Diagnostic.build($0, file: "\(EnvironmentResolver.overrideSource) '\(keyPath)=\(text)'")
            }
        }
    }

    /// For a `--set` of a `Settings` key that the files do not have: the key beside it that it is most
    /// likely a misspelling of (`Settings:LogLevl` for `Settings:LogLevel`). A new key far from every
    /// other is the user's to add.
    func likelyMisspeltSetting(_ keyPath: PlistKeyPath, in merged: PlistValue) -> PlistKeyPath? {
        guard keyPath.components.first == "Settings", keyPath.components.count > 1, merged[keyPath] == nil else { return nil }
        let parent = PlistKeyPath(Array(keyPath.components.dropLast()))
        guard let siblings = merged[parent]?.dictionaryValue?.keys, let key = keyPath.components.last,
            let guess = Suggestion.closest(to: key, in: Array(siblings), maximumDistance: 2)
        else { return nil }
        return parent.appending(guess)
    }

    /// Resolves `name`; `merges` holds the layers merged for other environments resolved with it,
    /// so an ancestor shared by many is merged once.
    func resolveCollectingFindings(_ name: String, merges: LayerMerges = LayerMerges()) -> (ResolvedEnvironment?, [Finding]) {
        var problems: [Finding] = (store.base?.problems ?? []).map { Finding(error: $0) }
        let layers: LayerMerges.Layers
        do { layers = try merges.layers(of: try store.position(of: name), in: store) } catch let error as Diagnostic
            where error.is(BuildProblem.self)
        {
            return (nil, problems + [Finding(error: error)])
        } catch {
            return (nil, problems + [Finding(error: Diagnostic.build("\(error)"))])
        }
        let environmentName = layers.chain.last!
        problems += layers.problems.map { Finding(error: $0) }
        problems += overrideProblems().map { Finding(error: $0) }
        var merge = layers.merge
        let validOverrides = overrides.filter { EnvironmentSchema.overrideProblem($0.keyPath) == nil }
        if !validOverrides.isEmpty {
            var overlay = PlistValue.dictionary(PlistDictionary())
            for (keyPath, text) in validOverrides {
                if let guess = likelyMisspeltSetting(keyPath, in: merge.value) {
                    problems.append(
                        Finding(
                            error: Diagnostic.build(
                                "no environment file has '\(keyPath)'; did you mean '\(guess)'?",
                                file: "\(EnvironmentResolver.overrideSource) '\(keyPath)=\(text)'")))
                    continue
                }
                do {
                    let existing = merge.value[keyPath] ?? overlay[keyPath]
                    let type = existing.flatMap(PlistValueType.init(of:)) ?? .string
                    try overlay.setValue(try type.parse(text, limits: store.limits), at: keyPath)
                } catch let error as Diagnostic where error.is(PlistProblem.self) {
                    problems.append(
                        Finding(
                            error: Diagnostic.build(
                                error.message, file: EnvironmentResolver.overrideSource, keyPath: keyPath.description)))
                } catch {
                    problems.append(
                        Finding(
                            error: Diagnostic.build("\(error)", file: EnvironmentResolver.overrideSource, keyPath: keyPath.description)))
                }
            }
            merge.apply(PlistMerge.Source(name: EnvironmentResolver.overrideSource, value: overlay))
        }

        func locate(_ keyPath: PlistKeyPath) -> (file: String, keyPath: PlistKeyPath) {
            guard let label = merge.source(of: keyPath) else { return (store.location, keyPath) }
            if label == EnvironmentResolver.overrideSource { return (label, keyPath) }
            guard let layer = LayerMerges.layer(labelled: label, in: store) else { return (store.location, keyPath) }
            return (layer.file, PlistKeyPath(layer.keyPathPrefix.components + keyPath.components))
        }

        let variables = merge.value["Variables"]?.dictionaryValue ?? PlistDictionary()
        let settings = self.settings
        let environment = processEnvironment
        let builtIns = ["CONFIGURATION": environmentName, "BUILD_NUMBER": CIEnvironment.buildNumber(in: environment)]
        let policy = variablePolicy
        let expander = BuildSettingExpander { variable in
            if let value = settings[variable] ?? variables[variable]?.stringValue { return value }
            // A built-in is never read from the process, even when it has no value (no CI counter).
            if let builtIn = builtIns[variable] { return builtIn }
            let value = environment[variable]
            if let problem = policy.problem(reading: variable, as: "$(\(variable))", isSet: value != nil, settable: true) {
                throw Diagnostic.expansion(problem)
            }
            return value
        }
        var expanded = merge.value
        func expandStrings(_ value: inout PlistValue, at keyPath: PlistKeyPath) {
            switch value {
            case .string(let text) where BuildSettingExpander.containsReference(text):
                do { value = .string(try expander.expand(text)) } catch {
                    let (file, sourcePath) = locate(keyPath)
                    let undefined = (error as? Diagnostic)?.subject
                    let message = undefined.map { EnvironmentResolver.undefinedMessage($0, in: [environmentName]) } ?? "\(error)"
                    problems.append(
                        Finding(error: Diagnostic.build(message, file: file, keyPath: sourcePath.description), undefinedVariable: undefined)
                    )
                }
            case .array(var items):
                for index in items.indices { expandStrings(&items[index], at: keyPath.appending(index)) }
                value = .array(items)
            case .dictionary(let dict):
                var result = PlistDictionary()
                for (key, child) in dict {
                    var child = child
                    expandStrings(&child, at: keyPath.appending(key))
                    result.append(key, child)
                }
                value = .dictionary(result)
            default:
                break
            }
        }
        expandStrings(&expanded, at: .root)
        let leaves = merge.leaves.map { leaf -> ResolvedEnvironment.Leaf in
            let (file, sourcePath) = locate(leaf.keyPath)
            return ResolvedEnvironment.Leaf(
                keyPath: leaf.keyPath, value: expanded[leaf.keyPath] ?? leaf.value,
                file: file, sourceKeyPath: sourcePath)
        }
        let resolved = ResolvedEnvironment(
            name: environmentName, chain: layers.chain,
            value: expanded.dictionaryValue ?? PlistDictionary(), leaves: leaves)
        return (resolved, problems)
    }
}
