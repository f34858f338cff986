/// Finding text in paths by their UTF-8 bytes. Swift's `contains` with a string argument is
/// Foundation's (a CFString search, with the string bridged each call), and the standard library's
/// `firstRange(of:)` runs unspecialised generic code: either took milliseconds over the thousands of
/// paths of an app, where a byte comparison takes microseconds.
public enum UTF8Search {
    /// Whether `text` holds the bytes of `part` somewhere (an empty `part` is everywhere).
    public static func contains(_ text: String, _ part: String) -> Bool {
        var (text, part) = (text, part)
        return text.withUTF8 { bytes in
            part.withUTF8 { part in
                guard let first = part.first else { return true }
                guard bytes.count >= part.count else { return false }
                for start in 0...(bytes.count - part.count) where bytes[start] == first {
                    var index = 1
                    while index < part.count && bytes[start + index] == part[index] { index += 1 }
                    if index == part.count { return true }
                }
                return false
            }
        }
    }
}
