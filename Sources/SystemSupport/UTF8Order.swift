import Glibc

/// The order of strings by their UTF-8 bytes: how Apple's tools sort the paths and keys they write
/// (CodeResources, archives), and the cheapest order to sort thousands of paths by, since the bytes
/// are compared with `memcmp` (Swift's own `<` compares characters).
public enum UTF8Order {
    /// Whether `a`'s bytes come before `b`'s (a prefix comes first).
    @inlinable public static func precedes(_ a: String, _ b: String) -> Bool {
        let compared = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                guard let first = a.baseAddress, let second = b.baseAddress else { return a.count < b.count }
                let order = memcmp(first, second, min(a.count, b.count))
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
        return (compared ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
