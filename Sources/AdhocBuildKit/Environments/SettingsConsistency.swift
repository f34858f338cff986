import PlistKit
import SystemSupport

/// `env check`'s comparison of environments: every `Settings` key path in all of them, with one type.
///
/// The file blamed is the odd one out. A key path that only a minority of environments have is reported
/// at the file that sets it ("only Release has this key (Debug, Staging do not)"), with "did you mean"
/// when it is close to a key the others have, and the "missing" report that typo would otherwise cause is
/// folded into that line. A key path that a majority have is missing in the rest; with as many on each side
/// both are named. Likewise a type that a minority use is the one reported.
struct SettingsConsistency {
    /// Every environment that resolved, in name order.
    var environments: [ResolvedEnvironment]
    /// Each environment's own file, by name, for what it lacks.
    var files: [String: String]

    /// The problems for each environment, keyed by its name; a line may belong to several environments.
    func problems() -> [String: [Diagnostic]] {
        var report: [String: [Diagnostic]] = [:]
        let paths = orderedPaths()
        var presence: [PlistKeyPath: Presence] = [:]
        for path in paths { presence[path] = Presence(path: path, in: environments) }
        // First the typos: a minority key close to one the others have, or two keys in a tie that
        // are each other's complement. Their "missing" reports are folded into one line.
        var folded: Set<Pair> = []
        var suggested: Set<PlistKeyPath> = []
        var typoLines: [PlistKeyPath: (suggestion: PlistKeyPath, tie: Bool)] = [:]
        for path in paths {
            let here = presence[path]!
            guard !here.lacking.isEmpty, !here.holders.isEmpty, here.holders.count <= here.lacking.count, !suggested.contains(path)
            else { continue }
            let tie = here.holders.count == here.lacking.count
            let candidates = paths.filter { other in
                guard other != path, other.parent == path.parent, let there = presence[other] else { return false }
                let lackingNames = Set(here.lacking.map(\.name))
                let otherHolders = Set(there.holders.map(\.name))
                // In a tie the two keys must be each other's complement; otherwise the others all have it.
                return tie
                    ? otherHolders == lackingNames && Set(there.lacking.map(\.name)) == Set(here.holders.map(\.name))
                    : lackingNames.isSubset(of: otherHolders)
            }
            guard let last = path.last,
                let guess = Suggestion.closest(to: last, in: candidates.compactMap(\.last), maximumDistance: Self.typoDistance(last)),
                let suggestion = candidates.first(where: { $0.last == guess })
            else { continue }
            typoLines[path] = (suggestion, tie)
            suggested.insert(suggestion)
            for holder in here.holders { folded.insert(Pair(environment: holder.name, path: suggestion)) }
            for lacking in here.lacking { folded.insert(Pair(environment: lacking.name, path: path)) }
        }
        for path in paths {
            let here = presence[path]!
            for (environment, problem) in typeProblems(here) { report[environment, default: []].append(problem) }
            if let typo = typoLines[path] {
                let text = typoText(here, suggestion: typo.suggestion, tie: typo.tie)
                for (environment, line) in lines(text, here) { report[environment, default: []].append(line) }
                if typo.tie {
                    // Both sides of a tie are concerned; each sees every line.
                    let all = locations(here).map { Diagnostic.build(text, file: $0.file, keyPath: $0.keyPath) }
                    for environment in here.lacking { report[environment.name, default: []] += all }
                }
                continue
            }
            guard !here.lacking.isEmpty else { continue }
            if here.holders.count < here.lacking.count {
                for (environment, line) in lines(onlyText(here), here) { report[environment, default: []].append(line) }
            } else {
                let names = here.holders.map(\.name)
                for environment in here.lacking where !folded.contains(Pair(environment: environment.name, path: path)) {
                    report[environment.name, default: []].append(
                        Diagnostic.build(
                            "is missing (\(names.joined(separator: ", ")) \(names.count == 1 ? "has" : "have") it)",
                            file: files[environment.name] ?? environment.name, keyPath: path.description))
                }
            }
        }
        return report
    }

    /// How far a misspelt key may be from the one meant: a case difference always; one or two edits
    /// (a quarter of a long key) for keys of four characters or more.
    static func typoDistance(_ key: String) -> Int { key.count >= 4 ? max(2, key.count / 4) : 0 }

    /// Every `Settings` leaf key path of any environment, in the order first met.
    private func orderedPaths() -> [PlistKeyPath] {
        var seen: Set<PlistKeyPath> = []
        var order: [PlistKeyPath] = []
        for environment in environments {
            for leaf in environment.leaves where leaf.keyPath.components.first == "Settings" && seen.insert(leaf.keyPath).inserted {
                order.append(leaf.keyPath)
            }
        }
        return order
    }

    /// `text` at the file and key path that sets `here.path` in each environment that has it.
    private func lines(_ text: String, _ here: Presence) -> [(String, Diagnostic)] {
        here.holders.map { environment in
            let location = location(of: here.path, in: environment)
            return (environment.name, Diagnostic.build(text, file: location.file, keyPath: location.keyPath))
        }
    }

    /// "only Release has this key (Debug, Staging do not)".
    private func onlyText(_ here: Presence) -> String {
        let holders = here.holders.map(\.name), lacking = here.lacking.map(\.name)
        return "only \(holders.joined(separator: ", ")) \(holders.count == 1 ? "has" : "have") this key "
            + "(\(lacking.joined(separator: ", ")) \(lacking.count == 1 ? "does" : "do") not)"
    }

    private func typoText(_ here: Presence, suggestion: PlistKeyPath, tie: Bool) -> String {
        tie
            ? "\(here.holders.map(\.name).joined(separator: ", ")) \(here.holders.count == 1 ? "has" : "have") this key where "
                + "\(here.lacking.map(\.name).joined(separator: ", ")) \(here.lacking.count == 1 ? "has" : "have") "
                + "'\(suggestion)'; is one of them misspelt?"
            : "\(onlyText(here)); did you mean '\(suggestion)'?"
    }

    /// The file and key path that set `path` in `environment`.
    private func location(of path: PlistKeyPath, in environment: ResolvedEnvironment) -> (file: String, keyPath: String) {
        let leaf = environment.leaf(at: path)
        return (leaf?.file ?? files[environment.name] ?? environment.name, (leaf?.sourceKeyPath ?? path).description)
    }

    /// The files and key paths that set `here.path` in the environments that have it, each once.
    private func locations(_ here: Presence) -> [(file: String, keyPath: String)] {
        var result: [(file: String, keyPath: String)] = []
        for environment in here.holders {
            let location = location(of: here.path, in: environment)
            if !result.contains(where: { $0 == location }) { result.append(location) }
        }
        return result
    }

    /// A type that differs between the environments that have the key path: the minority's is reported,
    /// or every side's when there is no majority.
    private func typeProblems(_ here: Presence) -> [(String, Diagnostic)] {
        let kinds = here.holders.map { ($0, PlistValue.dictionary($0.value)[here.path]!.kindName) }
        var counts: [String: Int] = [:]
        for (_, kind) in kinds { counts[kind, default: 0] += 1 }
        guard counts.count > 1 else { return [] }
        let most = counts.values.max()!
        let majority = counts.filter { $0.value == most }.count == 1 ? counts.first { $0.value == most }?.key : nil
        var result: [(String, Diagnostic)] = []
        for (environment, kind) in kinds where kind != majority {
            let others = kinds.filter { $0.1 != kind }
            let otherKind = majority ?? others[0].1
            let names = others.filter { $0.1 == otherKind }.map(\.0.name)
            let location = location(of: here.path, in: environment)
            result.append(
                (
                    environment.name,
                    Diagnostic.build(
                        "is \(PlistValue.withArticle(kind)) here but \(PlistValue.withArticle(otherKind)) in \(names.joined(separator: ", "))",
                        file: location.file, keyPath: location.keyPath)
                ))
        }
        return result
    }

    /// Which environments have a key path. One where a parent of it is not a dictionary is on neither
    /// side: that is a type difference, reported at the parent.
    struct Presence {
        var path: PlistKeyPath
        var holders: [ResolvedEnvironment] = []
        var lacking: [ResolvedEnvironment] = []

        init(path: PlistKeyPath, in environments: [ResolvedEnvironment]) {
            self.path = path
            for environment in environments {
                let root = PlistValue.dictionary(environment.value)
                if root[path] != nil {
                    holders.append(environment)
                } else if !Self.hasLeafAncestor(path, in: root) {
                    lacking.append(environment)
                }
            }
        }

        private static func hasLeafAncestor(_ path: PlistKeyPath, in root: PlistValue) -> Bool {
            var ancestor = path.parent
            while let current = ancestor, !current.isRoot {
                if let value = root[current], value.dictionaryValue == nil { return true }
                ancestor = current.parent
            }
            return false
        }
    }

    private struct Pair: Hashable {
        var environment: String
        var path: PlistKeyPath
    }
}
