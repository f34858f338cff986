/// Escaping for XML 1.0: which characters must be written as entities and which XML cannot hold at
/// all. The XML plist writer escapes strings with it (byte by byte, refusing what XML cannot hold),
/// and JUnit reports their text and attribute values (replacing what XML cannot hold).
public enum XMLText {
    /// The entity an ASCII byte is written as: `&`, `<` and `>` always, a carriage return as `&#13;`
    /// (so XML's line-end rules keep it), and in attribute values `"` and `'` too. Nil for a byte
    /// written as it is, and for one XML cannot hold (see ``canHold(_:)``).
    @inline(__always)
    public static func entity(for byte: UInt8, inAttribute: Bool) -> StaticString? {
        switch byte {
        case UInt8(ascii: "&"): return "&amp;"
        case UInt8(ascii: "<"): return "&lt;"
        case UInt8(ascii: ">"): return "&gt;"
        case 0x0D: return "&#13;"
        case UInt8(ascii: "\"") where inAttribute: return "&quot;"
        case UInt8(ascii: "'") where inAttribute: return "&apos;"
        default: return nil
        }
    }

    /// Whether XML 1.0 can hold `scalar`: tab, line feed, carriage return and everything from
    /// U+0020 up but U+FFFE and U+FFFF (the other C0 controls cannot be written even as entities).
    @inline(__always)
    public static func canHold(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return true
        case 0..<0x20, 0xFFFE, 0xFFFF: return false
        default: return true
        }
    }

    /// `text` for XML content and attribute values alike: the characters of
    /// ``entity(for:inAttribute:)`` as entities, those XML cannot hold as U+FFFD.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.isASCII, let entity = entity(for: UInt8(scalar.value), inAttribute: true) {
                out += entity.description
            } else if canHold(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\u{FFFD}"
            }
        }
        return out
    }
}
