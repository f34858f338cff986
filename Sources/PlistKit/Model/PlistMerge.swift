/// Deep merge of plists, remembering which source set every leaf.
///
/// Dictionaries merge key by key (keys new to the base are appended in the overlay's order);
/// every other value, arrays included, replaces what was there. A leaf is any value that
/// is not a non-empty dictionary.
public struct PlistMerge: Sendable {
    /// One layer of the merge: a value and the name used to explain where a leaf came from
    /// (usually a file name).
    public struct Source: Sendable {
        public var name: String
        public var value: PlistValue

        public init(name: String, value: PlistValue) {
            self.name = name
            self.value = value
        }
    }

    /// One leaf of the merged value and the source that set it.
    public struct Leaf: Equatable, Sendable {
        public var keyPath: PlistKeyPath
        public var value: PlistValue
        public var source: String
    }

    public private(set) var value: PlistValue
    private var origins: OriginNode

    private indirect enum OriginNode: Sendable {
        case leaf(String)
        case dictionary([String: OriginNode])
    }

    /// Merges `sources` in order, each over the ones before it.
    public init(_ sources: [Source]) {
        value = .dictionary(PlistDictionary())
        origins = .dictionary([:])
        for (index, source) in sources.enumerated() {
            if index == 0 {
                value = source.value
                origins = PlistMerge.origins(of: source.value, source: source.name)
            } else {
                apply(source)
            }
        }
    }

    /// Merges one more source over the current value.
    public mutating func apply(_ source: Source) {
        (value, origins) = PlistMerge.merge(value, origins, source.value, source.name)
    }

    private static func origins(of value: PlistValue, source: String) -> OriginNode {
        guard case .dictionary(let dict) = value, !dict.isEmpty else { return .leaf(source) }
        var children: [String: OriginNode] = [:]
        for (key, child) in dict { children[key] = origins(of: child, source: source) }
        return .dictionary(children)
    }

    private static func merge(
        _ base: PlistValue, _ baseOrigins: OriginNode, _ overlay: PlistValue,
        _ source: String
    ) -> (PlistValue, OriginNode) {
        guard case .dictionary(var merged) = base, case .dictionary(let top) = overlay,
            case .dictionary(var children) = baseOrigins
        else {
            return (overlay, origins(of: overlay, source: source))
        }
        for (key, child) in top {
            if let existing = merged[key], let existingOrigin = children[key] {
                let (value, origin) = merge(existing, existingOrigin, child, source)
                merged[key] = value
                children[key] = origin
            } else {
                merged[key] = child
                children[key] = origins(of: child, source: source)
            }
        }
        return (.dictionary(merged), .dictionary(children))
    }

    /// Every leaf of the merged value in document order, with the source that set it.
    public var leaves: [Leaf] {
        var result: [Leaf] = []
        PlistMerge.collect(value, origins, PlistKeyPath.root, into: &result)
        return result
    }

    /// The name of the source that set the value at `path`, when `path` is a leaf or inside one.
    public func source(of path: PlistKeyPath) -> String? {
        var node = origins
        for component in path.components {
            guard case .dictionary(let children) = node, let next = children[component] else { break }
            node = next
        }
        if case .leaf(let name) = node { return name }
        return nil
    }

    private static func collect(
        _ value: PlistValue, _ origin: OriginNode, _ path: PlistKeyPath,
        into result: inout [Leaf]
    ) {
        switch (value, origin) {
        case (.dictionary(let dict), .dictionary(let children)):
            for (key, child) in dict {
                collect(child, children[key] ?? .leaf("?"), path.appending(key), into: &result)
            }
        case (_, .leaf(let name)):
            result.append(Leaf(keyPath: path, value: value, source: name))
        case (_, .dictionary):
            result.append(Leaf(keyPath: path, value: value, source: "?"))
        }
    }
}
