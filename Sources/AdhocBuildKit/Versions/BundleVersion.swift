/// A version as `CFBundleVersion` and `CFBundleShortVersionString` must be: one to three
/// period-separated non-negative integers (`42`, `1.4`, `1.4.2`).
public struct BundleVersion: Comparable, CustomStringConvertible, Sendable {
    public var components: [UInt64]

    /// Parses `text`; nil unless it is one to three period-separated non-negative integers.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var components: [UInt64] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), part.count <= 18, let value = UInt64(part)
            else { return nil }
            components.append(value)
        }
        self.components = components
    }

    public init(components: [UInt64]) { self.components = components }

    /// Why `text` is not a valid version, for error messages; `source` names where it was read from
    /// (`BUILD_NUMBER`), for a value the user did not type.
    public static func problem(_ text: String, field: String, from source: String? = nil) -> String {
        let value = "'\(text)'" + (source.map { " (from \($0))" } ?? "")
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if (1...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }) {
            return "\(value) is not a valid \(field): each of its numbers may have at most 18 digits"
        }
        return "\(value) is not a valid \(field): it must be one to three period-separated non-negative integers (like 42 or 1.4.2)"
    }

    public var description: String { components.map(String.init).joined(separator: ".") }

    /// The last component plus one: `41` → `42`, `1.4.9` → `1.4.10`.
    public var incrementingLast: BundleVersion {
        var copy = components
        copy[copy.count - 1] += 1
        return BundleVersion(components: copy)
    }

    /// Which part of a marketing version to raise.
    public enum Part: String, CaseIterable, Sendable { case major, minor, patch }

    /// Raises `part` and zeroes the parts after it: `1.4.2` → major `2.0.0`, minor `1.5.0`,
    /// patch `1.4.3`; a missing part is added (`1.4` → patch `1.4.1`).
    public func bumping(_ part: Part) -> BundleVersion {
        let index = part == .major ? 0 : part == .minor ? 1 : 2
        var copy = components
        while copy.count <= index { copy.append(0) }
        copy[index] += 1
        for later in (index + 1)..<copy.count { copy[later] = 0 }
        return BundleVersion(components: copy)
    }

    /// Compares numerically component by component, missing components counting as zero.
    public static func < (lhs: BundleVersion, rhs: BundleVersion) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let a = index < lhs.components.count ? lhs.components[index] : 0
            let b = index < rhs.components.count ? rhs.components[index] : 0
            if a != b { return a < b }
        }
        return false
    }

    public static func == (lhs: BundleVersion, rhs: BundleVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}
