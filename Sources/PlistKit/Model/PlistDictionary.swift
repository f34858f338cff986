/// A plist dictionary that keeps its keys in insertion order and looks them up in O(1).
///
/// Keys compare by their exact UTF-8 bytes, as Core Foundation does: `"é"` written
/// precomposed and decomposed are two different keys.
public struct PlistDictionary: Sendable, Equatable, Sequence {
    public private(set) var keys: [String] = []
    public private(set) var values: [PlistValue] = []
    /// Built once a dictionary grows past `indexThreshold` keys; small ones scan.
    private var index: [PlistKey: Int]? = nil
    private static let indexThreshold = 12

    public init() {}

    /// Builds a dictionary from pairs; a repeated key keeps its first position and its last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PlistValue) {
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// The position of `key`, or nil.
    public func position(of key: String) -> Int? {
        if let index { return index[PlistKey(key)] }
        let target = PlistKey(key)
        for (offset, existing) in keys.enumerated() where PlistKey(existing) == target { return offset }
        return nil
    }

    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// Reads, replaces (keeping the key's position), appends, or with `nil` removes.
    public subscript(key: String) -> PlistValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let newValue {
                if let at = position(of: key) { values[at] = newValue } else { append(key, newValue) }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Appends a key known not to be present (readers check duplicates themselves).
    public mutating func append(_ key: String, _ value: PlistValue) {
        keys.append(key)
        values.append(value)
        if index != nil {
            index![PlistKey(key)] = keys.count - 1
        } else if keys.count > PlistDictionary.indexThreshold {
            rebuildIndex()
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> PlistValue? {
        guard let at = position(of: key) else { return nil }
        keys.remove(at: at)
        let removed = values.remove(at: at)
        if keys.count > PlistDictionary.indexThreshold { rebuildIndex() } else { index = nil }
        return removed
    }

    /// Sorts keys the way Apple's writers do (by UTF-16 code units, as `CFStringCompare` without options).
    public mutating func sortKeys() {
        let order = keys.indices.sorted { PlistKey.appleOrder(keys[$0], keys[$1]) }
        keys = order.map { keys[$0] }
        values = order.map { values[$0] }
        if index != nil { rebuildIndex() }
    }

    private mutating func rebuildIndex() {
        var built = [PlistKey: Int](minimumCapacity: keys.count)
        for (offset, key) in keys.enumerated() { built[PlistKey(key)] = offset }
        index = built
    }

    public func makeIterator() -> Zip2Sequence<[String], [PlistValue]>.Iterator {
        zip(keys, values).makeIterator()
    }

    public static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (key, value) in lhs {
            guard let other = rhs[key], other == value else { return false }
        }
        return true
    }
}

/// A dictionary key compared by its exact UTF-8 bytes rather than by canonical equivalence.
struct PlistKey: Hashable, Sendable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: PlistKey, rhs: PlistKey) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for byte in string.utf8 { hasher.combine(byte) } }
    }

    /// Apple's default key order: lexicographic by UTF-16 code unit.
    static func appleOrder(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }
}
