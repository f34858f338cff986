/// The positions of one dictionary's keys by their 64-bit hashes, for ``DuplicateKeyDetector``: open
/// addressing over one flat array, so a dictionary of thousands of keys (a CodeResources seal)
/// costs no allocation per key.
struct KeyPositionTable {
    /// Each slot holds a position + 1, or 0 when empty; the count is a power of two.
    private var slots: [Int]
    private var count = 0

    /// A table for about `expected` keys.
    init(expected: Int) {
        var capacity = 64
        while capacity < expected * 2 { capacity *= 2 }
        slots = [Int](repeating: 0, count: capacity)
    }

    /// The slot a probe for `hash` starts at: the top bits of the hash mixed by a multiplication, so
    /// that hashes which differ only in high bits spread too.
    private func start(_ hash: UInt64) -> Int {
        let bits = UInt64(slots.count.trailingZeroBitCount)
        return Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> (64 - bits))
    }

    /// Whether a position recorded with `hash` satisfies `matches` (which checks the key itself).
    func contains(hash: UInt64, where matches: (Int) -> Bool) -> Bool {
        let mask = slots.count - 1
        var slot = start(hash)
        while slots[slot] != 0 {
            if matches(slots[slot] - 1) { return true }
            slot = (slot + 1) & mask
        }
        return false
    }

    /// Records `position`, whose key hashes to `hash`; `hashOf` gives the hash of a position
    /// already recorded, for moving it when the table grows.
    mutating func insert(_ position: Int, hash: UInt64, hashOf: (Int) -> UInt64) {
        if (count + 1) * 2 > slots.count {
            let recorded = slots.filter { $0 != 0 }
            slots = [Int](repeating: 0, count: slots.count * 2)
            for stored in recorded { place(stored, hash: hashOf(stored - 1)) }
        }
        place(position + 1, hash: hash)
        count += 1
    }

    /// Puts `stored` (a position + 1) in the first empty slot from where `hash` starts.
    private mutating func place(_ stored: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = start(hash)
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = stored
    }
}
