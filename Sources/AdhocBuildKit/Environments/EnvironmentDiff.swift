import PlistKit

/// `env diff A B`: the leaf key paths added, removed and changed from one resolved environment to another.
public struct EnvironmentDiff: Sendable {
    public enum Change: Equatable, Sendable {
        case added(PlistKeyPath, PlistValue)
        case removed(PlistKeyPath, PlistValue)
        case changed(PlistKeyPath, from: PlistValue, to: PlistValue)
    }

    public var changes: [Change]

    public init(from a: ResolvedEnvironment, to b: ResolvedEnvironment) {
        let old = a.leaves, new = b.leaves
        let oldByPath = Dictionary(old.map { ($0.keyPath, $0.value) }, uniquingKeysWith: { first, _ in first })
        let newByPath = Dictionary(new.map { ($0.keyPath, $0.value) }, uniquingKeysWith: { first, _ in first })
        var changes: [Change] = []
        for leaf in old {
            if let value = newByPath[leaf.keyPath] {
                if value != leaf.value { changes.append(.changed(leaf.keyPath, from: leaf.value, to: value)) }
            } else {
                changes.append(.removed(leaf.keyPath, leaf.value))
            }
        }
        for leaf in new where oldByPath[leaf.keyPath] == nil { changes.append(.added(leaf.keyPath, leaf.value)) }
        self.changes = changes
    }

    /// One line per change: `+ path = value`, `- path = value`, `~ path: old -> new`.
    public var lines: [String] {
        changes.map { change in
            switch change {
            case .added(let path, let value): return "+ \(path) = \(EnvironmentDiff.render(value))"
            case .removed(let path, let value): return "- \(path) = \(EnvironmentDiff.render(value))"
            case .changed(let path, let from, let to):
                return "~ \(path): \(EnvironmentDiff.render(from)) -> \(EnvironmentDiff.render(to))"
            }
        }
    }

    /// A value on one line, as `plist print` renders it.
    public static func render(_ value: PlistValue) -> String { PlistTextPrinter().renderInline(value) }
}
