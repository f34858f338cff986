/// The `APPEARANCEKEYS` tree of catalogs that hold dark or tinted variants: each appearance's name
/// (`UIAppearanceAny`, `UIAppearanceDark`, `NSAppearanceNameDarkAqua`, …) and the number rendition
/// keys carry for it. Older catalogs have no such tree; their renditions all have appearance 0.
struct AppearanceKeys {
    /// Appearance names by the number in rendition keys.
    var namesByValue: [Int: String] = [:]

    init(store: BOMStore) throws {
        guard store.variables["APPEARANCEKEYS"] != nil else { return }
        for entry in try BOMTree.entries(of: store, named: "APPEARANCEKEYS") {
            let name = try entry.key.string(0, entry.key.count, "appearance name")
            let value = try entry.value.u16le(0, "appearance '\(name)' value")
            if namesByValue[value] == nil { namesByValue[value] = name }
        }
    }
}
