import Glibc

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

    /// What follows `prefix` in `text` when `text`'s bytes start with `prefix`'s, else nil: a path
    /// below a folder, cut by bytes where `hasPrefix` and `dropFirst` walk characters.
    public static func remainder(of text: String, after prefix: String) -> String? {
        var (text, prefix) = (text, prefix)
        return text.withUTF8 { bytes in
            prefix.withUTF8 { prefix -> String? in
                guard bytes.count >= prefix.count else { return nil }
                guard prefix.isEmpty || memcmp(bytes.baseAddress!, prefix.baseAddress!, prefix.count) == 0 else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[prefix.count...]), as: UTF8.self)
            }
        }
    }
}
