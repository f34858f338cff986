/// A `.properties` file as `java.util.Properties.load` reads it (Jenkins' `readProperties`).
public enum JavaProperties {
    /// `key=value` with both escaped, without the line end.
    public static func line(_ key: String, _ value: String) -> String { escape(key, isKey: true) + "=" + escape(value, isKey: false) }

    /// `text` escaped so that `load` reads it back exactly and on one line: `\\`, `\t`, `\n`, `\r`,
    /// `\f`; `=` and `:` (which would end a key); a leading space (which `load` skips), or every
    /// space of a key; a leading `#` or `!` (a comment at the start of a line); and every other
    /// control character and everything outside printable ASCII as `\uXXXX` (UTF-16 units), as
    /// `Properties.store` writes them, so the file is ASCII whatever encoding it is read in.
    public static func escape(_ text: String, isKey: Bool) -> String {
        var out = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            switch scalar {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{0C}": out += "\\f"
            case "=", ":": out += "\\" + String(scalar)
            case " " where isKey || index == 0: out += "\\ "
            case "#" where index == 0, "!" where index == 0: out += "\\" + String(scalar)
            default:
                if scalar.value < 0x20 || scalar.value > 0x7E {
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16, uppercase: true)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
