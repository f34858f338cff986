import Foundation
import PlistKit
import SystemSupport

/// The environments of a project: a folder with an optional `Base.plist` of shared defaults
/// and one plist per environment (`Debug.plist`, `Staging.plist`, …), or the seed article's
/// single `Environments.plist` with one dictionary per build configuration.
public struct EnvironmentStore: Sendable {
    /// The folder or file the environments were read from.
    public var location: String
    public var base: EnvironmentDefinition?
    /// In name order.
    public private(set) var environments: [EnvironmentDefinition]
    /// The limits the environment plists were read with, and overrides are parsed with.
    public private(set) var limits: PlistLimits
    /// Each environment's index in `environments`, by its exact name.
    private var positions: [String: Int] = [:]
    /// The index of each environment's parent (what it inherits), when that names an environment.
    private var parents: [Int?] = []

    public static let baseName = "Base"
    public static let singleFileName = "Environments.plist"

    /// Reads a folder of environment plists, or a single `Environments.plist`-style file, with `limits`.
    public init(at location: String, limits: PlistLimits = .default) throws {
        self.location = location
        self.limits = limits
        guard let kind = FileIO.kind(of: location) else {
            throw Diagnostic.build(
                "no environments here (expected a folder of environment plists or an Environments.plist)",
                file: location)
        }
        var found: [EnvironmentDefinition] = []
        if kind == .folder {
            let names = try FileIO.names(in: location)
                .filter { $0.hasSuffix(".plist") && !$0.hasPrefix(".") }.sorted()
            for name in names {
                let path = (location as NSString).appendingPathComponent(name)
                if name == EnvironmentStore.singleFileName {
                    found += try EnvironmentStore.readSingleFile(path, limits: limits)
                    continue
                }
                let definition = try EnvironmentStore.definition(named: String(name.dropLast(".plist".count)), at: path, limits: limits)
                if definition.name == EnvironmentStore.baseName {
                    var definition = definition
                    if let inherits = definition.inherits {
                        definition.problems.append(
                            Diagnostic.build("Base.plist cannot inherit (it names '\(inherits)')", file: path, keyPath: "Inherits"))
                        definition.inherits = nil
                    }
                    base = definition
                } else {
                    found.append(definition)
                }
            }
        } else {
            found = try EnvironmentStore.readSingleFile(location, limits: limits)
        }
        var seen: [String: String] = [:]
        for definition in found {
            if let other = seen[definition.name] {
                throw Diagnostic.build("environment '\(definition.name)' is defined twice (also in \(other))", file: definition.file)
            }
            seen[definition.name] = definition.file
        }
        environments = found.sorted { $0.name < $1.name }
        for (index, definition) in environments.enumerated() { positions[definition.name] = index }
        parents = environments.map { $0.inherits.flatMap { positions[$0] } }
        if environments.isEmpty {
            // Base's own problem (a file that cannot be read, say) explains more than "no environments".
            if let problem = base?.problems.first { throw problem }
            throw Diagnostic.build("holds no environments", file: location)
        }
    }

    static func read(_ path: String, limits: PlistLimits) throws -> PlistValue {
        try PropertyList(contentsOf: path, limits: limits).value
    }

    /// The environment in the file at `path`. A file that cannot be read or parsed becomes an empty
    /// environment holding that problem, so the other environments are still checked and anything
    /// that uses this one reports it.
    static func definition(named name: String, at path: String, limits: PlistLimits) throws -> EnvironmentDefinition {
        let value: PlistValue
        do { value = try read(path, limits: limits) } catch let error as Diagnostic {
            var empty = try EnvironmentDefinition(name: name, file: path, value: .dictionary(PlistDictionary()))
            empty.problems.append(error)
            empty.wasRead = false
            return empty
        }
        return try EnvironmentDefinition(name: name, file: path, value: value)
    }

    static func readSingleFile(_ path: String, limits: PlistLimits) throws -> [EnvironmentDefinition] {
        guard case .dictionary(let root) = try read(path, limits: limits) else {
            throw Diagnostic.build("must be a dictionary of environments", file: path, keyPath: "")
        }
        return try root.map { name, value in
            try EnvironmentDefinition(name: name, file: path, keyPathPrefix: PlistKeyPath([name]), value: value, lenient: true)
        }
    }

    /// The environment called `name`; an exact match first, then one that differs only in case.
    public func environment(named name: String) throws -> EnvironmentDefinition {
        environments[try position(of: name)]
    }

    /// The index in `environments` of the environment called `name` (as ``environment(named:)`` finds it).
    func position(of name: String) throws -> Int {
        if let exact = positions[name] { return exact }
        let folded = environments.indices.filter { environments[$0].name.lowercased() == name.lowercased() }
        if folded.count == 1 { return folded[0] }
        if let base, base.name.lowercased() == name.lowercased() {
            throw Diagnostic.build(
                "'\(base.name)' is the layer every environment is built on, not an environment of its own; "
                    + "there are \(environments.map(\.name).joined(separator: ", "))", file: base.file)
        }
        var message = "no environment '\(name)'; there are \(environments.map(\.name).joined(separator: ", "))"
        if let base, Suggestion.distance(name.lowercased(), base.name.lowercased()) <= 1 {
            // A slip of one letter in the base layer's name ("Bse"), not any short name ("Nope").
            message =
                "no environment '\(name)'; '\(base.name)' is the layer every environment is built on, not an environment of its own; "
                + "there are \(environments.map(\.name).joined(separator: ", "))"
        } else if let guess = Suggestion.closest(to: name, in: environments.map(\.name), maximumDistance: 3) {
            message = "no environment '\(name)'; did you mean '\(guess)'?"
        }
        throw Diagnostic.build(message, file: location)
    }

    /// `name` and the environments it inherits from, the furthest ancestor first.
    public func chain(for name: String) throws -> [EnvironmentDefinition] {
        try chainPositions(for: name).map { environments[$0] }
    }

    /// The indices in `environments` of ``chain(for:)``. Each parent is found by its name in one step,
    /// and a cycle is looked for only once the walk is longer than there are environments, so a chain
    /// costs a step per ancestor: searching every environment, and the chain so far, at each step made
    /// `env check` grow with the cube of the number of environments in a chain.
    func chainPositions(for name: String) throws -> [Int] {
        var chain: [Int] = []
        var current = try position(of: name)
        while true {
            if chain.count == parents.count { throw cycle(along: chain + [current]) }
            chain.append(current)
            if let next = parents[current] {
                current = next
                continue
            }
            let definition = environments[current]
            guard let parent = definition.inherits else { break }
            let names = chain.map { environments[$0].name }.joined(separator: " -> ")
            throw Diagnostic.build(
                "inherits '\(parent)', which does not exist (\(names) -> \(parent))", file: definition.file,
                keyPath: definition.keyPathPrefix.appending("Inherits").description)
        }
        return chain.reversed()
    }

    /// The index of the environment that the one at `index` inherits from; nil when it inherits from
    /// none, or names one that does not exist.
    func parent(of index: Int) -> Int? { parents[index] }

    /// The error for a walk up the parents that ran into a cycle (`walk` holds more steps than there are
    /// environments, so one is met again): the names up to the first one met again, at its `Inherits`.
    private func cycle(along walk: [Int]) -> Diagnostic {
        var seen: Set<Int> = []
        let end = walk.firstIndex { !seen.insert($0).inserted } ?? walk.count - 1
        let names = walk[...end].map { environments[$0].name }
        let definition = environments[walk[end]]
        return Diagnostic.build(
            "inheritance cycle: \(names.joined(separator: " -> "))", file: definition.file,
            keyPath: definition.keyPathPrefix.appending("Inherits").description)
    }
}
