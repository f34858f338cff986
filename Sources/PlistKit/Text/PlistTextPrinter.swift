/// Renders a plist value for people to read, in the spirit of `plutil -p`:
/// strings quoted, containers indented two spaces, dictionary keys in stored order.
public struct PlistTextPrinter {
    public var sortKeys: Bool

    public init(sortKeys: Bool = false) { self.sortKeys = sortKeys }

    public func render(_ value: PlistValue) -> String {
        var out = ""
        append(value, depth: 0, into: &out)
        out.append("\n")
        return out
    }

    /// A scalar as a shell script wants it: strings and numbers bare, data as base64, dates in
    /// ISO 8601; containers as `render` does.
    public func renderRaw(_ value: PlistValue) -> String {
        switch value {
        case .string(let string): return string + "\n"
        case .integer(let integer): return integer.description + "\n"
        case .real(let real): return XMLPlistWriter.format(real) + "\n"
        case .bool(let bool): return (bool ? "true" : "false") + "\n"
        case .date(let date): return date.iso8601 + "\n"
        case .data(let data):
            var out = [UInt8]()
            Base64.encode(data, into: &out)
            return String(decoding: out, as: UTF8.self) + "\n"
        case .uid(let uid): return String(uid) + "\n"
        case .array, .dictionary: return render(value)
        }
    }

    /// The value on one line: `"text"`, `42`, `["a", 1]`, `{"key" => true}`.
    public func renderInline(_ value: PlistValue) -> String {
        switch value {
        case .array(let items): return "[" + items.map(renderInline).joined(separator: ", ") + "]"
        case .dictionary(var dict):
            if sortKeys { dict.sortKeys() }
            return "{" + dict.map { "\(quoted($0.0)) => \(renderInline($0.1))" }.joined(separator: ", ") + "}"
        default:
            var text = ""
            append(value, depth: 0, into: &text)
            return text
        }
    }

    private func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20: out += "\\u{\(String(s.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private func append(_ value: PlistValue, depth: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: depth + 1)
        switch value {
        case .string(let string): out += quoted(string)
        case .integer(let integer): out += integer.description
        case .real(let real): out += XMLPlistWriter.format(real)
        case .bool(let bool): out += bool ? "true" : "false"
        case .date(let date): out += date.iso8601
        case .data(let data):
            let hex = data.prefix(32).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            out += "<\(data.count) bytes: \(hex.joined())\(data.count > 32 ? "…" : "")>"
        case .uid(let uid): out += "<CFKeyedArchiverUID \(uid)>"
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += pad + "\(index) => "
                append(item, depth: depth + 1, into: &out)
                out += "\n"
            }
            out += String(repeating: "  ", count: depth) + "]"
        case .dictionary(var dict):
            if dict.isEmpty { out += "{}"; return }
            if sortKeys { dict.sortKeys() }
            out += "{\n"
            for (key, item) in dict {
                out += pad + quoted(key) + " => "
                append(item, depth: depth + 1, into: &out)
                out += "\n"
            }
            out += String(repeating: "  ", count: depth) + "}"
        }
    }
}
