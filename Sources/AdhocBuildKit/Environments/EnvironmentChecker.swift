import PlistKit

/// `env check`: every environment resolves, all have the same `Settings` key paths with the
/// same types, no variable is undefined, bundle identifiers are valid, and URLs use https.
/// Every problem is collected and reported together.
public struct EnvironmentChecker: Sendable {
    public var resolver: EnvironmentResolver

    public init(resolver: EnvironmentResolver) { self.resolver = resolver }

    /// The outcome for one environment.
    public struct Result: Sendable {
        public var name: String
        public var file: String
        public var problems: [AdhocBuildError]
        public var errors: [AdhocBuildError] { problems.filter { $0.severity == .error } }
        public var warnings: [AdhocBuildError] { problems.filter { $0.severity == .warning } }
    }

    /// Checks `names` (all environments when empty) and returns one result per environment.
    public func check(_ names: [String] = []) -> [Result] {
        var results: [Result] = []
        var resolved: [ResolvedEnvironment] = []
        let definitions: [EnvironmentDefinition]
        do {
            definitions = names.isEmpty ? resolver.store.environments : try names.map { try resolver.store.environment(named: $0) }
        } catch let error as AdhocBuildError {
            return [Result(name: names.joined(separator: ", "), file: resolver.store.location, problems: [error])]
        } catch {
            return [
                Result(
                    name: names.joined(separator: ", "), file: resolver.store.location,
                    problems: [AdhocBuildError("\(error)")])
            ]
        }
        for definition in definitions {
            let (environment, problems) = resolver.resolveCollectingProblems(definition.name)
            var result = Result(name: definition.name, file: definition.file, problems: problems)
            if let environment {
                resolved.append(environment)
                result.problems += EnvironmentChecker.checkValues(environment)
            }
            results.append(result)
        }
        // Every Settings key path must be in every environment, with one type.
        var kinds: [PlistKeyPath: [(environment: String, kind: String)]] = [:]
        var order: [PlistKeyPath] = []
        for environment in resolved {
            for (path, value) in EnvironmentChecker.settingsLeaves(environment) {
                if kinds[path] == nil { order.append(path) }
                kinds[path, default: []].append((environment.name, value.kindName))
            }
        }
        for environment in resolved {
            guard let resultIndex = results.firstIndex(where: { $0.name == environment.name }) else { continue }
            let own = Dictionary(
                EnvironmentChecker.settingsLeaves(environment).map { ($0.0.description, $0.1) },
                uniquingKeysWith: { first, _ in first })
            for path in order {
                let holders = kinds[path]!
                if let value = own[path.description] {
                    let others = holders.filter { $0.kind != value.kindName && $0.environment != environment.name }
                    if let other = others.first {
                        let leaf = environment.leaf(at: path)
                        results[resultIndex].problems.append(
                            AdhocBuildError(
                                "is \(value.kindWithArticle) here but \(PlistValue.withArticle(other.kind)) in \(other.environment)",
                                file: leaf?.file ?? environment.name, keyPath: (leaf?.sourceKeyPath ?? path).description))
                    }
                } else if !hasAncestorLeaf(path, in: own) {
                    let present = holders.map(\.environment)
                    results[resultIndex].problems.append(
                        AdhocBuildError(
                            "is missing (\(present.joined(separator: ", ")) \(present.count == 1 ? "has" : "have") it)",
                            file: results[resultIndex].file, keyPath: path.description))
                }
            }
        }
        return results
    }

    /// A key path counts as present when a parent of it is a non-dictionary leaf (reported as a type clash instead).
    private func hasAncestorLeaf(_ path: PlistKeyPath, in own: [String: PlistValue]) -> Bool {
        var components = path.components
        while !components.isEmpty {
            components.removeLast()
            if own[PlistKeyPath(components).description] != nil { return true }
        }
        return false
    }

    static func settingsLeaves(_ environment: ResolvedEnvironment) -> [(PlistKeyPath, PlistValue)] {
        environment.leaves.compactMap { leaf in
            leaf.keyPath.components.first == "Settings" ? (leaf.keyPath, leaf.value) : nil
        }
    }

    /// Bundle identifiers and URLs in one resolved environment.
    static func checkValues(_ environment: ResolvedEnvironment) -> [AdhocBuildError] {
        var problems: [AdhocBuildError] = []
        for leaf in environment.leaves {
            let place = (file: leaf.file, keyPath: leaf.sourceKeyPath.description)
            if leaf.keyPath == PlistKeyPath(["Info", "CFBundleIdentifier"]) {
                if case .string(let identifier) = leaf.value {
                    if let reason = BundleIdentifier.problem(identifier) {
                        problems.append(
                            AdhocBuildError(
                                "'\(identifier)' is not a valid bundle identifier: \(reason)",
                                file: place.file, keyPath: place.keyPath))
                    }
                } else {
                    problems.append(
                        AdhocBuildError(
                            "a bundle identifier must be a string, not \(leaf.value.kindWithArticle)",
                            file: place.file, keyPath: place.keyPath))
                }
            }
            for text in strings(in: leaf.value) where text.lowercased().hasPrefix("http://") {
                problems.append(
                    AdhocBuildError(
                        "'\(text)' is not https; iOS refuses OTA installs and App Transport "
                            + "Security blocks plain http", file: place.file, keyPath: place.keyPath,
                        severity: .warning))
            }
        }
        return problems
    }

    static func strings(in value: PlistValue) -> [String] {
        switch value {
        case .string(let text): return [text]
        case .array(let items): return items.flatMap(strings)
        case .dictionary(let dict): return dict.values.flatMap(strings)
        default: return []
        }
    }
}

/// Apple's rule for bundle identifiers: letters, digits, hyphens and periods, in non-empty
/// period-separated parts.
public enum BundleIdentifier {
    /// Why `identifier` is invalid, or nil when it is valid.
    public static func problem(_ identifier: String) -> String? {
        if identifier.isEmpty { return "it is empty" }
        if let bad = identifier.unicodeScalars.first(where: {
            !($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "."))
        }) {
            return "'\(bad)' is not allowed (only letters, digits, '-' and '.')"
        }
        if identifier.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "it has an empty part between periods"
        }
        return nil
    }
}
