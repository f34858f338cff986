/// HTML escaping, for text and attribute values alike: the install page's templates, release
/// notes, and the QR code's SVG label.
public enum HTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references, so it can stand in element
    /// text and in a quoted attribute value of either kind.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        // Scalar by scalar: a quote followed by a combining mark is one Character, not equal to `"`,
        // yet the browser still ends the attribute at its quote byte.
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
