import PlistKit

/// Key: value lines for a summary dictionary, nested ones indented.
enum Summary {
    /// Prints `summary` as JSON, or as ``lines(_:indent:)``.
    static func print(_ summary: PlistValue, json: Bool) throws {
        if json {
            Console.out(try PropertyList.encode(summary, format: .json))
        } else {
            Console.lines(lines(summary))
        }
    }

    /// One line per scalar; a value from the app (a name, a certificate's subject) stays on its line,
    /// since ``Console/lines(_:)`` shows a newline inside it rather than obeying it.
    static func lines(_ value: PlistValue, indent: String = "") -> [String] {
        guard case .dictionary(let dict) = value else { return [indent + PlistTextPrinter().renderInline(value)] }
        let width = dict.keys.map(\.count).max() ?? 0
        var out: [String] = []
        for (key, item) in dict {
            let label = indent + (key + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0)
            switch item {
            case .dictionary(let nested) where !nested.isEmpty:
                out += [indent + key + ":"] + lines(item, indent: indent + "  ")
            case .array(let items) where items.isEmpty:
                out.append(label + "-")
            case .array(let items) where items.allSatisfy({ !$0.isContainer }):
                out.append(label + items.map { $0.stringValue ?? PlistTextPrinter().renderInline($0) }.joined(separator: ", "))
            case .array(let items) where items.contains(where: \.isContainer):
                // Each item as a block: "  - first: …" then its other lines under it.
                out.append(indent + key + ":")
                for item in items {
                    var block = lines(item, indent: indent + "    ")
                    if !block.isEmpty { block[0] = indent + "  - " + block[0].dropFirst(indent.count + 4) }
                    out += block
                }
            case .string(let string): out.append(label + string)
            default:
                // Scalars end with a line end; an empty container prints its brackets on lines of their own.
                let raw = PlistTextPrinter().renderRaw(item).dropLast().split(separator: "\n", omittingEmptySubsequences: false)
                out += [label + raw[0]] + raw.dropFirst().map(String.init)
            }
        }
        return out
    }
}
