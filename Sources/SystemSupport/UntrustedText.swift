import Foundation

/// Text that someone else controls (a certificate's common name, a bundle's display name, a zip
/// entry's or a file's name), made safe to print on a terminal or into a CI log: what would steer
/// the terminal or the CI server is shown, never obeyed.
///
/// Shown as `\u{XX}` (hexadecimal, upper case): every control character (C0 and C1, `DEL`, so a
/// newline cannot start a line of its own, a carriage return cannot overwrite one, an escape cannot
/// change colours and NUL never reaches the terminal), the line and paragraph separators
/// U+2028 and U+2029, and the bidirectional controls that reorder what is displayed. Two CI markers
/// are broken the same way: `##teamcity[` anywhere in a line (TeamCity reads a service message
/// wherever it starts) has its `[` shown, and a line that starts with `::` (a GitHub Actions
/// workflow command) has its first `:` shown. Every other character, backslashes included, is
/// kept, so ordinary text prints byte for byte.
public enum UntrustedText {
    /// `text` as one line: line ends and tabs inside it are shown too.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isShown($0) || $0 == "#" || $0 == ":" }) else { return text }
        return defuseMarkers(escape(text, keeping: []))
    }

    /// `text` as lines: each line as ``line(_:)`` would show it, the `\n` between them kept (and tabs).
    public static func block(_ text: String) -> String {
        isPlainBlock(text) ? text : escapedBlock(text)
    }

    /// ``block(_:)`` the long way, line by line, for text that is not plain.
    static func escapedBlock(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isShown($0) || $0 == "#" || $0 == ":" }) else { return text }
        // Split by scalars: "\r\n" is one Character, and its CR must be shown.
        return text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { defuseMarkers(escape(String(String.UnicodeScalarView($0)), keeping: ["\t"])) }
            .joined(separator: "\n")
    }

    /// Whether ``block(_:)`` keeps `text` as it is, found in one pass over its bytes: printable
    /// ASCII, line ends and tabs only, no `#` at all, and no line whose first character after its
    /// indent is `:`. Text that is not plain goes the long way, which decides exactly; what a
    /// command prints of its own (a verdict, a table) is plain, and is not split, escaped and
    /// joined again line by line.
    static func isPlainBlock(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var atLineStart = true
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\n"): atLineStart = true
                case UInt8(ascii: " "), UInt8(ascii: "\t"): continue
                case UInt8(ascii: "#"): return false
                case UInt8(ascii: ":") where atLineStart: return false
                case 0x21...0x7E: atLineStart = false
                default: return false
                }
            }
            return true
        }
    }

    /// Whether `scalar` is shown as `\u{XX}` rather than printed.
    static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional controls
        default: return false
        }
    }

    static func escape(_ text: String, keeping kept: Set<Unicode.Scalar>) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isShown(scalar) && !kept.contains(scalar) {
                out.append(contentsOf: shown(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `\u{0A}` for a newline: at least two hexadecimal digits, upper case.
    static func shown(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
    }

    /// Breaks the CI markers of one line (see the type's documentation).
    static func defuseMarkers(_ line: String) -> String {
        var line = line
        if line.contains(teamCityMarker) {
            line = line.replacingOccurrences(of: teamCityMarker, with: "##teamcity" + shown("["))
        }
        let indent = line.prefix { $0 == " " || $0 == "\t" }
        if line.dropFirst(indent.count).hasPrefix("::") {
            line = String(indent) + shown(":") + line.dropFirst(indent.count + 1)
        }
        return line
    }

    static let teamCityMarker = "##teamcity["
}
