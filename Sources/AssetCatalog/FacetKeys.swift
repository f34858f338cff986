/// The `FACETKEYS` tree: each facet (an asset's name, such as `AppIcon`) with the attributes its
/// renditions share, of which the name identifier links a rendition back to its facet.
struct FacetKeys {
    /// Facet names by name identifier.
    var namesByIdentifier: [Int: String] = [:]

    /// At most this many attributes per facet (CoreUI writes 3 or 4).
    static let maximumAttributes = 256

    init(store: BOMStore) throws {
        guard store.variables["FACETKEYS"] != nil else { return }
        for entry in try BOMTree.entries(of: store, named: "FACETKEYS") {
            let name = try entry.key.string(0, entry.key.count, "facet name")
            // Value: hot spot x, y (16 bits each), attribute count, then (attribute, value) pairs.
            let count = try entry.value.u16le(4, "facet '\(name)' attribute count")
            guard count <= Self.maximumAttributes else {
                throw entry.value.failure("facet '\(name)' claims \(count) attributes")
            }
            for index in 0..<count {
                let attribute = try entry.value.u16le(6 + 4 * index, "facet '\(name)' attribute \(index)")
                let value = try entry.value.u16le(8 + 4 * index, "facet '\(name)' value \(index)")
                if attribute == RenditionAttribute.identifier.rawValue, namesByIdentifier[value] == nil {
                    namesByIdentifier[value] = name
                }
            }
        }
    }
}
