import PlistKit
import SystemSupport

/// The merged layers of the environments resolved together (`env check`, and `env apply` and
/// `release`, which compare one environment with all): Base, then each environment of a chain, the
/// furthest ancestor first. An environment's layers are its parent's and its own file, so its merge
/// is its parent's with one more layer applied, and every file is merged once however many
/// environments inherit it: a chain of N environments merges N files, not N²/2.
///
/// Each layer is named in the merge by ``label(of:)``, which ``EnvironmentResolver`` maps back to
/// its file and key path with ``layer(labelled:in:)``.
final class LayerMerges {
    /// What a chain's layers give an environment, built from its parent's with one layer more.
    struct Layers {
        var merge: PlistMerge
        /// The names of the chain, the furthest ancestor first.
        var chain: [String]
        /// The problems of every file of the chain (Base's not included).
        var problems: [Diagnostic]
    }

    /// The merge of Base (nil before it is made, or when there is no Base), then what the chain
    /// ending at each environment gives, by the environment's index in the store.
    private var base: PlistMerge?
    private var merged: [Int: Layers] = [:]
    /// How many layers were merged in all, for tests: each file once.
    private(set) var layersApplied = 0

    /// The label of Base's layer: neither an index nor ``EnvironmentResolver/overrideSource``.
    static let baseLabel = "Base"

    /// The label of the layer of the environment at `index` in the store.
    static func label(of index: Int) -> String { String(index) }

    /// The definition a label names in `store`: Base, or an environment by its index.
    static func layer(labelled label: String, in store: EnvironmentStore) -> EnvironmentDefinition? {
        if label == baseLabel { return store.base }
        guard let index = Int(label), store.environments.indices.contains(index) else { return nil }
        return store.environments[index]
    }

    /// Base, then the chain of the environment at `index` in `store` (the furthest ancestor first),
    /// merged in order. The walk up its parents stops at the first one merged before, whose layers
    /// are taken as they are; a parent that does not exist, or a cycle, throws what
    /// ``EnvironmentStore/chain(for:)`` throws.
    func layers(of index: Int, in store: EnvironmentStore) throws -> Layers {
        var pending: [Int] = []
        var next: Int? = index
        while let current = next, merged[current] == nil {
            if pending.count == store.environments.count { break }
            pending.append(current)
            next = store.parent(of: current)
        }
        let reachedMerged = next.map { merged[$0] != nil } ?? false
        let reachedRoot = next == nil && store.environments[pending.last!].inherits == nil
        if !reachedMerged && !reachedRoot {
            // A missing parent or a cycle: the store says which, as it does for the whole chain.
            _ = try store.chainPositions(for: store.environments[index].name)
        }
        var layers = next.flatMap { merged[$0] }
        if layers == nil, let base = baseMerge(store) { layers = Layers(merge: base, chain: [], problems: []) }
        for current in pending.reversed() {
            let environment = store.environments[current]
            let source = PlistMerge.Source(name: Self.label(of: current), value: .dictionary(environment.body))
            if layers == nil {
                layers = Layers(merge: PlistMerge([source]), chain: [], problems: [])
            } else {
                layers!.merge.apply(source)
            }
            layers!.chain.append(environment.name)
            layers!.problems += environment.problems
            layersApplied += 1
            merged[current] = layers
        }
        return layers!
    }

    /// Base's layer alone, merged once.
    private func baseMerge(_ store: EnvironmentStore) -> PlistMerge? {
        if base == nil, let layer = store.base {
            base = PlistMerge([PlistMerge.Source(name: Self.baseLabel, value: .dictionary(layer.body))])
            layersApplied += 1
        }
        return base
    }
}
