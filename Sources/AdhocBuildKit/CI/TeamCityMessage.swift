/// TeamCity service messages (`##teamcity[name 'value']`), every value escaped as TeamCity
/// specifies: `|'`, `|n`, `|r`, `|[`, `|]`, `||`, and `|0xNNNN` (four hexadecimal digits, one UTF-16
/// unit each, so a character beyond U+FFFF takes two) for every other control character and
/// every character outside ASCII. A value can then neither end the message nor start a line of
/// its own, whatever the build put in it.
public enum TeamCityMessage {
    public static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": out += "|'"
            case "\n": out += "|n"
            case "\r": out += "|r"
            case "[": out += "|["
            case "]": out += "|]"
            case "|": out += "||"
            default:
                if scalar.value >= 0x7F || scalar.value < 0x20 {
                    for unit in String(scalar).utf16 {
                        let hex = String(unit, radix: 16, uppercase: false)
                        out += "|0x" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `##teamcity[name 'value']`.
    public static func single(_ name: String, _ value: String) -> String { "##teamcity[\(name) '\(escape(value))']" }

    /// `##teamcity[name key='value' …]`.
    public static func attributes(_ name: String, _ attributes: [(String, String)]) -> String {
        "##teamcity[\(name) " + attributes.map { "\($0.0)='\(escape($0.1))'" }.joined(separator: " ") + "]"
    }
}
