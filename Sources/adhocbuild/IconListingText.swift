import IPAKit

extension IconListing {
    /// The listing as `icon list` prints it: the icon files, then the catalog's renditions, each
    /// line starting with `*` for the icon the install page uses; then the alternate icons; then
    /// notices, or why there is none.
    var lines: [String] {
        var lines: [String] = []
        func section(_ title: String, _ entries: [Entry]) {
            lines.append(title)
            lines += entries.map { "\($0.isShown ? "*" : " ") \($0.text)" }
        }
        if !files.isEmpty || iconNames.isEmpty { section("icon files: \(files.isEmpty ? "none" : "")", files) }
        if !iconNames.isEmpty {
            let names = iconNames.map { "'\($0)'" }.joined(separator: ", ")
            section("Assets.car, icon set \(names): \(renditions.isEmpty ? "no renditions" : "")", renditions)
        }
        for alternate in alternates {
            var sources: [String] = []
            if let name = alternate.icon.iconSetName { sources.append("icon set '\(name)'") }
            if !alternate.icon.fileNames.isEmpty { sources.append("files \(alternate.icon.fileNames.joined(separator: ", "))") }
            let from = sources.isEmpty ? "" : " (\(sources.joined(separator: "; ")))"
            section(
                "alternate icon '\(alternate.icon.name)'\(from): \(alternate.entries.isEmpty ? "not in the bundle" : "")", alternate.entries
            )
        }
        lines += notices.map { "passed over: \($0)" }
        if let missingReason { lines.append("no icon for the install page: \(missingReason)") }
        return lines.map { $0.hasSuffix(": ") ? String($0.dropLast()) : $0 }
    }
}
