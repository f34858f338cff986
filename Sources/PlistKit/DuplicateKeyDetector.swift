import Foundation

/// Finds repeated keys in the dictionaries a reader has open, by exact bytes, without making strings.
///
/// Keys of open dictionaries are kept in one byte arena; a new key is compared only with
/// earlier keys of the same dictionary whose 64-bit hash matches.
struct DuplicateKeyDetector {
    /// Zero-filled storage of which the first `arenaCount` bytes are in use, so a key is stored
    /// with one copy and a dictionary's keys are dropped by moving the count.
    private var arena = [UInt8](repeating: 0, count: 4096)
    private var arenaCount = 0
    private var keys: [(hash: UInt64, start: Int, count: Int)] = []
    /// For each open dictionary: where its keys start in `keys` and `arena`, and, once it has
    /// many keys, a hash index of them.
    private var frames: [(firstKey: Int, arenaStart: Int, index: [UInt64: [Int]]?)] = []
    private static let indexThreshold = 16

    mutating func beginDictionary() {
        frames.append((keys.count, arenaCount, nil))
    }

    mutating func endDictionary() {
        guard let frame = frames.popLast() else { return }
        keys.removeSubrange(frame.firstKey...)
        arenaCount = frame.arenaStart
    }

    /// The most recent key of the innermost open dictionary, for error messages.
    var lastKey: String {
        guard let frame = frames.last, keys.count > frame.firstKey, let entry = keys.last else { return "" }
        return String(decoding: arena[entry.start..<(entry.start + entry.count)], as: UTF8.self)
    }

    /// A 64-bit hash of `bytes`, eight at a time.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 { BinaryPlistEncoder.hash(bytes) }

    /// Records `key` for the innermost open dictionary; false when that dictionary already has it.
    mutating func insert(_ key: UnsafeRawBufferPointer) -> Bool {
        guard !frames.isEmpty else { return true }
        let hash = DuplicateKeyDetector.hash(key)
        let top = frames.count - 1
        let first = frames[top].firstKey
        func matches(_ index: Int) -> Bool {
            let entry = keys[index]
            guard entry.hash == hash, entry.count == key.count else { return false }
            return entry.count == 0 || arena.withUnsafeBytes { memcmp($0.baseAddress! + entry.start, key.baseAddress!, entry.count) == 0 }
        }
        if let index = frames[top].index {
            if let candidates = index[hash], candidates.contains(where: matches) { return false }
        } else {
            for index in first..<keys.count where matches(index) { return false }
        }
        keys.append((hash, arenaCount, key.count))
        if arenaCount + key.count > arena.count {
            arena.append(contentsOf: repeatElement(0, count: max(arena.count, key.count)))
        }
        if key.count > 0 {
            arena.withUnsafeMutableBytes {
                $0.baseAddress!.advanced(by: arenaCount).copyMemory(from: key.baseAddress!, byteCount: key.count)
            }
        }
        arenaCount += key.count
        let count = keys.count - first
        if frames[top].index != nil {
            frames[top].index![hash, default: []].append(keys.count - 1)
        } else if count > DuplicateKeyDetector.indexThreshold {
            var index: [UInt64: [Int]] = [:]
            for position in first..<keys.count { index[keys[position].hash, default: []].append(position) }
            frames[top].index = index
        }
        return true
    }
}
