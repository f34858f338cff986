import Foundation

/// Finds repeated keys in the dictionaries a reader has open, by exact bytes, without making strings.
///
/// Keys of open dictionaries are kept in one byte arena; a new key is compared only with
/// earlier keys of the same dictionary whose 64-bit hash matches.
///
/// The arena and the key list are raw storage, since every key of a file passes through here
/// and arrays were checked for uniqueness on each write; they belong to a `Storage` object
/// that frees them. Use a detector in place: a copy would share, and disturb, its storage.
struct DuplicateKeyDetector {
    private struct Entry {
        var hash: UInt64
        var start: Int
        var count: Int
    }

    /// An open dictionary: where its keys start in the key list and the arena, and which hash
    /// table it has (an index into `tables`, -1 for none) once it has many keys.
    private struct Frame {
        var firstKey: Int
        var arenaStart: Int
        var index: Int
    }

    /// Owns the raw buffers, so they are freed with the last copy of the detector.
    private final class Storage {
        var arena: UnsafeMutablePointer<UInt8>
        var entries: UnsafeMutablePointer<Entry>
        init(arenaCapacity: Int, entryCapacity: Int) {
            arena = .allocate(capacity: arenaCapacity)
            entries = .allocate(capacity: entryCapacity)
        }
        deinit {
            arena.deallocate()
            entries.deallocate()
        }
    }

    private let storage: Storage
    /// Copies of `storage`'s pointers, read without going through the object.
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCount = 0
    private var arenaCapacity = 4096
    private var entries: UnsafeMutablePointer<Entry>
    private var entryCount = 0
    private var entryCapacity = 256
    private var frames: [Frame] = []
    private var tables: [KeyPositionTable] = []
    private static let indexThreshold = 16

    init() {
        storage = Storage(arenaCapacity: arenaCapacity, entryCapacity: entryCapacity)
        arena = storage.arena
        entries = storage.entries
    }

    mutating func beginDictionary() {
        frames.append(Frame(firstKey: entryCount, arenaStart: arenaCount, index: -1))
    }

    mutating func endDictionary() {
        guard let frame = frames.popLast() else { return }
        entryCount = frame.firstKey
        arenaCount = frame.arenaStart
        if frame.index >= 0 { tables.removeLast() }
    }

    /// The most recent key of the innermost open dictionary, for error messages.
    var lastKey: String {
        guard let frame = frames.last, entryCount > frame.firstKey else { return "" }
        let entry = entries[entryCount - 1]
        return String(decoding: UnsafeBufferPointer(start: arena + entry.start, count: entry.count), as: UTF8.self)
    }

    /// A 64-bit hash of `bytes`, eight at a time.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 { BinaryPlistEncoder.hash(bytes) }

    /// Records `key` for the innermost open dictionary; false when that dictionary already has it.
    mutating func insert(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let frame = frames.last else { return true }
        let hash = DuplicateKeyDetector.hash(key)
        let arena = self.arena
        let entries = self.entries
        func matches(_ position: Int) -> Bool {
            let entry = entries[position]
            guard entry.hash == hash, entry.count == key.count else { return false }
            return entry.count == 0 || memcmp(arena + entry.start, key.baseAddress!, entry.count) == 0
        }
        if frame.index >= 0 {
            if tables[frame.index].contains(hash: hash, where: matches) { return false }
        } else {
            for position in frame.firstKey..<entryCount where matches(position) { return false }
        }
        append(Entry(hash: hash, start: arenaCount, count: key.count), key)
        let count = entryCount - frame.firstKey
        // `append` may have moved the entries.
        let hashOf = { [entries = self.entries] (position: Int) in entries[position].hash }
        if frame.index >= 0 {
            tables[frame.index].insert(entryCount - 1, hash: hash, hashOf: hashOf)
        } else if count > DuplicateKeyDetector.indexThreshold {
            var table = KeyPositionTable(expected: count)
            for position in frame.firstKey..<entryCount { table.insert(position, hash: hashOf(position), hashOf: hashOf) }
            tables.append(table)
            frames[frames.count - 1].index = tables.count - 1
        }
        return true
    }

    /// Adds `entry` and copies `key` into the arena, growing either as needed.
    private mutating func append(_ entry: Entry, _ key: UnsafeRawBufferPointer) {
        if entryCount == entryCapacity {
            let grown = UnsafeMutablePointer<Entry>.allocate(capacity: entryCapacity * 2)
            grown.update(from: entries, count: entryCount)
            entries.deallocate()
            entries = grown
            storage.entries = grown
            entryCapacity *= 2
        }
        entries[entryCount] = entry
        entryCount += 1
        if arenaCount + key.count > arenaCapacity {
            let newCapacity = max(arenaCapacity * 2, arenaCount + key.count)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: arena, count: arenaCount)
            arena.deallocate()
            arena = grown
            storage.arena = grown
            arenaCapacity = newCapacity
        }
        if let source = key.baseAddress, key.count > 0 {
            UnsafeMutableRawPointer(arena + arenaCount).copyMemory(from: source, byteCount: key.count)
        }
        arenaCount += key.count
    }
}
