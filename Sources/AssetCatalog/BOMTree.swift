import SystemSupport

/// A B-tree stored in a BOM container: a `tree` header block, index nodes that lead down to leaf
/// nodes, and leaves chained by forward links. Each leaf entry names a key block and a value block.
///
/// ``entries(of:named:)`` walks every leaf, following forward links, and refuses cycles, links to
/// blocks that are not nodes, and trees that claim more entries than the store has blocks.
enum BOMTree {
    /// One leaf entry: where its key and its value lie in the store's bytes.
    struct Entry {
        let key: ByteView
        let value: ByteView
    }

    /// Every entry of the tree stored in the variable `name`, in leaf order.
    static func entries(of store: BOMStore, named name: String) throws -> [Entry] {
        guard let header = try store.variable(name) else {
            throw Diagnostic.assetCatalog("the catalog has no '\(name)' tree", file: store.file, location: "variables table")
        }
        guard header.hasTag(0, "tree") else {
            throw header.failure("the '\(name)' tree does not start with 'tree'")
        }
        let root = try header.u32be(8, "root node")
        var node = try store.block(root, "\(name) root node")
        var visited: Set<Int> = [root]
        // Down the first child of each index node to the leftmost leaf.
        while try node.u16be(0, "leaf flag") == 0 {
            let count = try node.u16be(2, "entry count")
            guard count > 0 else { throw node.failure("index node of the '\(name)' tree has no entries") }
            let child = try node.u32be(12, "first child")
            guard visited.insert(child).inserted else {
                throw node.failure("the '\(name)' tree loops back to block \(child)")
            }
            node = try store.block(child, "\(name) index child")
        }
        var entries: [Entry] = []
        while true {
            let count = try node.u16be(2, "entry count")
            try node.check(12, count * 8, "\(count) entries")
            for index in 0..<count {
                let value = try node.u32be(12 + 8 * index, "entry \(index) value")
                let key = try node.u32be(16 + 8 * index, "entry \(index) key")
                entries.append(Entry(key: try store.block(key, "\(name) key"), value: try store.block(value, "\(name) value")))
            }
            guard entries.count <= store.blockCount else {
                throw node.failure("the '\(name)' tree has more entries than the store has blocks (\(store.blockCount))")
            }
            let next = try node.u32be(4, "forward link")
            if next == 0 { break }
            guard visited.insert(next).inserted else {
                throw node.failure("the '\(name)' tree's leaves loop back to block \(next)")
            }
            node = try store.block(next, "\(name) next leaf")
            guard try node.u16be(0, "leaf flag") != 0 else {
                throw node.failure("the '\(name)' tree's forward link leads to an index node")
            }
        }
        return entries
    }
}
