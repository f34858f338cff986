import PlistKit
import SystemSupport

/// `env check`: every environment resolves, all have the same `Settings` key paths with the
/// same types, no variable is undefined, bundle identifiers are valid, and URLs use https.
/// Every problem is collected and reported together, once, at the file that is the odd one out.
public struct EnvironmentChecker: Sendable {
    public var resolver: EnvironmentResolver

    public init(resolver: EnvironmentResolver) { self.resolver = resolver }

    /// The outcome for one environment: every problem that concerns it, including lines it shares
    /// with others (an undefined variable in Base, say).
    public struct Result: Sendable {
        public var name: String
        public var file: String
        public var problems: [Diagnostic]
        /// False for a name asked for that is no environment (its one problem says so).
        public var isEnvironment = true
        public var errors: [Diagnostic] { problems.filter { $0.severity == .error } }
        public var warnings: [Diagnostic] { problems.filter { $0.severity == .warning } }
    }

    /// The outcome of a check: one result per environment checked, and every problem once, in order.
    public struct Report: Sendable {
        /// One per environment checked (and per name that is not one), for JUnit.
        public var results: [Result]
        /// What to print: each problem of `results` once.
        public var problems: [Diagnostic]
        /// The distinct errors; any makes the check fail.
        public var errors: [Diagnostic] { problems.filter { $0.severity == .error } }
        /// The distinct warnings.
        public var warnings: [Diagnostic] { problems.filter { $0.severity == .warning } }

        /// "4 environments checked: 1 error, 0 warnings" (a name that is no environment is not counted).
        public var summary: String {
            func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
            let checked = results.filter(\.isEnvironment).count
            return "\(count(checked, "environment")) checked: \(count(errors.count, "error")), \(count(warnings.count, "warning"))"
        }

        init(results: [Result]) {
            self.results = results
            var seen: Set<String> = []
            problems = results.flatMap(\.problems).filter { seen.insert("\($0.severity.rawValue): \($0)").inserted }
        }
    }

    /// Checks `names` (all environments when empty). Every environment is resolved and compared, since a
    /// key that only one has is that one's problem, but only the named ones' problems are reported.
    public func check(_ names: [String] = []) -> Report {
        check(names, merges: LayerMerges())
    }

    /// ``check(_:)``, merging the environments' layers into `merges`.
    func check(_ names: [String], merges: LayerMerges) -> Report {
        let store = resolver.store
        var findings: [String: [EnvironmentResolver.Finding]] = [:]
        var resolved: [ResolvedEnvironment] = []
        for definition in store.environments {
            let (environment, found) = resolver.resolveCollectingFindings(definition.name, merges: merges)
            findings[definition.name] = found + (environment.map(EnvironmentChecker.checkValues) ?? []).map { .init(error: $0) }
            if let environment, definition.wasRead { resolved.append(environment) }
        }
        // One line for a reference that several environments cannot resolve, naming them.
        var undefinedIn: [UndefinedKey: [String]] = [:]
        for definition in store.environments {
            for finding in findings[definition.name]! {
                if let key = UndefinedKey(finding) { undefinedIn[key, default: []].append(definition.name) }
            }
        }
        let files = Dictionary(store.environments.map { ($0.name, $0.file) }, uniquingKeysWith: { first, _ in first })
        let consistency = SettingsConsistency(environments: resolved, files: files).problems()
        var results: [Result] = []
        var reported: Set<String> = []
        for name in names.isEmpty ? store.environments.map(\.name) : names {
            let definition: EnvironmentDefinition
            do { definition = try store.environment(named: name) } catch {
                let problem = error as? Diagnostic ?? Diagnostic.build("\(error)")
                results.append(Result(name: name, file: problem.file ?? store.location, problems: [problem], isEnvironment: false))
                continue
            }
            guard reported.insert(definition.name).inserted else { continue }
            var problems = findings[definition.name]!.map { finding in
                guard let key = UndefinedKey(finding) else { return finding.error }
                var error = finding.error
                error.message = EnvironmentResolver.undefinedMessage(key.variable, in: undefinedIn[key]!)
                return error
            }
            problems += consistency[definition.name] ?? []
            results.append(Result(name: definition.name, file: definition.file, problems: problems))
        }
        return Report(results: results)
    }

    /// The problems of environment `name` that only a comparison with every other shows: `Settings`
    /// key paths or types that differ (what `env check` reports as "only QA has this key").
    public func consistencyProblems(of name: String) -> [Diagnostic] {
        let store = resolver.store
        var resolved: [ResolvedEnvironment] = []
        let merges = LayerMerges()
        for definition in store.environments where definition.wasRead {
            if let environment = resolver.resolveCollectingFindings(definition.name, merges: merges).0 { resolved.append(environment) }
        }
        let files = Dictionary(store.environments.map { ($0.name, $0.file) }, uniquingKeysWith: { first, _ in first })
        return SettingsConsistency(environments: resolved, files: files).problems()[name] ?? []
    }

    /// Where an undefined variable is referenced.
    private struct UndefinedKey: Hashable {
        var file: String?
        var keyPath: String?
        var variable: String

        init?(_ finding: EnvironmentResolver.Finding) {
            guard let variable = finding.undefinedVariable else { return nil }
            self.file = finding.error.file
            self.keyPath = finding.error.keyPath
            self.variable = variable
        }
    }

    /// Bundle identifiers and URLs in one resolved environment.
    static func checkValues(_ environment: ResolvedEnvironment) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for leaf in environment.leaves {
            let place = (file: leaf.file, keyPath: leaf.sourceKeyPath.description)
            if leaf.keyPath == PlistKeyPath(["Info", "CFBundleIdentifier"]) {
                if case .string(let identifier) = leaf.value {
                    if let reason = BundleIdentifier.problem(identifier) {
                        problems.append(
                            Diagnostic.build(
                                "'\(identifier)' is not a valid bundle identifier: \(reason)",
                                file: place.file, keyPath: place.keyPath))
                    }
                } else {
                    problems.append(
                        Diagnostic.build(
                            "a bundle identifier must be a string, not \(leaf.value.kindWithArticle)",
                            file: place.file, keyPath: place.keyPath))
                }
            }
            for text in strings(in: leaf.value) where text.lowercased().hasPrefix("http://") {
                problems.append(
                    Diagnostic.build(
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
