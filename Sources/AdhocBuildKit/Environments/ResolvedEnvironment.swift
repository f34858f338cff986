import PlistKit

/// An environment with inheritance, overrides and variables applied: what `env show` prints
/// and `env apply` writes.
public struct ResolvedEnvironment: Sendable {
    public var name: String
    /// The environments merged, the furthest ancestor first (Base is not listed).
    public var chain: [String]
    /// `Settings`, `Info`, `Distribution` and `Variables`, fully expanded.
    public var value: PlistDictionary
    /// Every leaf with the file and key path that set it.
    public var leaves: [Leaf]

    /// One value of the resolved environment and where it came from.
    public struct Leaf: Equatable, Sendable {
        public var keyPath: PlistKeyPath
        public var value: PlistValue
        /// The file that set it, or `--set` for a command-line override.
        public var file: String
        /// Where in that file.
        public var sourceKeyPath: PlistKeyPath
    }

    public var settings: PlistDictionary { value["Settings"]?.dictionaryValue ?? PlistDictionary() }
    public var info: PlistDictionary { value["Info"]?.dictionaryValue ?? PlistDictionary() }
    public var distribution: PlistDictionary { value["Distribution"]?.dictionaryValue ?? PlistDictionary() }
    public var variables: PlistDictionary { value["Variables"]?.dictionaryValue ?? PlistDictionary() }

    /// The leaf at `keyPath` or the one holding it (an array), if any.
    public func leaf(at keyPath: PlistKeyPath) -> Leaf? {
        leaves.first { keyPath.components.starts(with: $0.keyPath.components) }
    }
}
