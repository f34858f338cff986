import PlistKit

/// Key: value lines for a summary dictionary, nested ones indented.
enum Summary {
    static func text(_ value: PlistValue, indent: String = "") -> String {
        guard case .dictionary(let dict) = value else { return indent + PlistTextPrinter().renderInline(value) + "\n" }
        let width = dict.keys.map(\.count).max() ?? 0
        var out = ""
        for (key, item) in dict {
            let label = indent + (key + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0)
            switch item {
            case .dictionary(let nested) where !nested.isEmpty:
                out += indent + key + ":\n" + text(item, indent: indent + "  ")
            case .array(let items) where items.isEmpty:
                out += label + "-\n"
            case .array(let items) where items.allSatisfy({ !$0.isContainer }):
                out += label + items.map { $0.stringValue ?? PlistTextPrinter().renderInline($0) }.joined(separator: ", ") + "\n"
            case .array(let items) where items.contains(where: \.isContainer):
                // Each item as a block: "  - first: …" then its other lines under it.
                out +=
                    indent + key + ":\n"
                    + items.map { item -> String in
                        let block = text(item, indent: indent + "    ")
                        return indent + "  - " + block.dropFirst(indent.count + 4)
                    }.joined()
            case .string(let string): out += label + string + "\n"
            default: out += label + PlistTextPrinter().renderRaw(item)
            }
        }
        return out
    }
}
