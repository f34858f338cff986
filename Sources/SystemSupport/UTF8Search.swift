import Glibc

/// Finding text in paths by their UTF-8 bytes. Swift's `contains` with a string argument is
/// Foundation's (a CFString search, with the string bridged each call), and the standard library's
/// `firstRange(of:)` runs unspecialised generic code: either took milliseconds over the thousands of
/// paths of an app, where a byte comparison takes microseconds.
public enum UTF8Search {
    /// Whether `text` holds the bytes of `part` somewhere (an empty `part` is everywhere).
    public static func contains(_ text: String, _ part: String) -> Bool {
        var (text, part) = (text, part)
        return text.withUTF8 { bytes in part.withUTF8 { contains(UnsafeRawBufferPointer(bytes), UnsafeRawBufferPointer($0)) } }
    }

    /// Whether `bytes` hold the bytes `part` somewhere (an empty `part` is everywhere): the search the
    /// string form uses, for bytes that are not a string (a file read whole).
    public static func contains(_ bytes: UnsafeRawBufferPointer, _ part: UnsafeRawBufferPointer) -> Bool {
        guard let first = part.first else { return true }
        guard bytes.count >= part.count, let base = bytes.baseAddress else { return false }
        var start = 0
        // Each candidate found by memchr, then compared whole.
        while start <= bytes.count - part.count {
            guard let hit = memchr(base + start, Int32(first), bytes.count - part.count + 1 - start) else { return false }
            start = UnsafeRawPointer(hit) - base
            if memcmp(base + start, part.baseAddress!, part.count) == 0 { return true }
            start += 1
        }
        return false
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
