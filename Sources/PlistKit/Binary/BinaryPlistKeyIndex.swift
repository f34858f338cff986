import Foundation

/// Decides whether a binary dictionary's keys are distinct strings before its pairs are walked,
/// by giving every key object the number of its text: a writer stores each distinct key once,
/// so the text of a key object is hashed once per file, not once per dictionary, and checking a
/// dictionary is a lookup per key.
///
/// Objects with equal text (a writer that does not unique its strings) get the same number, so
/// duplicates are found by content, as before. Raw storage throughout: these are touched for
/// every key, and arrays would be checked for uniqueness on each write. `deallocate()` frees it.
struct BinaryPlistKeyIndex {
    /// Per object: 0 while unknown, else 1 + the number of its text.
    private let textNumbers: UnsafeMutablePointer<UInt32>
    /// Per text number: the dictionary that last used it, so a repeat within one dictionary shows.
    private var stamps: UnsafeMutablePointer<UInt64>
    private var stampCapacity = 64
    private var dictionarySerial: UInt64 = 0
    /// Open-addressed: the hash and 1 + number of each distinct text (0: empty slot).
    private var slots: [(hash: UInt64, number: UInt32)] = Array(repeating: (0, 0), count: 64)
    /// The UTF-8 of each distinct text, back to back; `ends[n]` is where text `n` ends.
    private var texts: [UInt8] = []
    private var ends: [Int] = []

    init(objectCount: Int) {
        textNumbers = ZeroedMemory.allocate(UInt32.self, count: objectCount)
        stamps = .allocate(capacity: stampCapacity)
        stamps.initialize(repeating: 0, count: stampCapacity)
    }

    func deallocate() {
        ZeroedMemory.release(textNumbers)
        stamps.deallocate()
    }

    /// True when the `count` keys whose references start at `refs` are strings that decode and
    /// none repeats. False for anything else (a bad reference, a key that is not a string or does
    /// not decode, a repeat): the caller then walks the dictionary key by key, which reports the
    /// first problem in document order exactly as it always has. Has no other effect.
    mutating func keysAreDistinctStrings(refs: Int, count: Int, in table: BinaryPlistObjectTable) -> Bool {
        dictionarySerial += 1
        let serial = dictionarySerial
        for index in 0..<count {
            let ref = BinaryPlistObjectTable.readUInt(table.bytes, at: refs + index * table.refSize, size: table.refSize)
            guard ref < UInt64(table.objectCount) else { return false }
            var number = textNumbers[Int(ref)]
            if number == 0 {
                guard let new = intern(Int(ref), table: table) else { return false }
                number = new
            }
            if stamps[Int(number)] == serial { return false }
            stamps[Int(number)] = serial
        }
        return true
    }

    /// Numbers the text of string object `object`; nil when it is not a string or does not decode.
    private mutating func intern(_ object: Int, table: BinaryPlistObjectTable) -> UInt32? {
        guard let (decoded, _, _) = try? table.object(object) else { return nil }
        let number: UInt32
        switch decoded {
        case .ascii(let range): number = intern(UnsafeRawBufferPointer(rebasing: table.bytes[range]))
        case .utf16(let range):
            var utf8: [UInt8] = []
            guard (try? table.appendUTF8(fromUTF16: range, object: object, to: &utf8)) != nil else { return nil }
            number = utf8.withUnsafeBytes { intern($0) }
        default: return nil
        }
        textNumbers[object] = number
        return number
    }

    /// 1 + the number of `text`, a new one when it was not seen before.
    private mutating func intern(_ text: UnsafeRawBufferPointer) -> UInt32 {
        let hash = BinaryPlistEncoder.hash(text)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot].number != 0 {
            if slots[slot].hash == hash {
                let number = Int(slots[slot].number) - 1
                let start = number == 0 ? 0 : ends[number - 1]
                if ends[number] - start == text.count
                    && (text.isEmpty || texts.withUnsafeBytes { memcmp($0.baseAddress! + start, text.baseAddress!, text.count) == 0 })
                {
                    return slots[slot].number
                }
            }
            slot = (slot + 1) & mask
        }
        texts.append(contentsOf: text)
        ends.append(texts.count)
        let number = UInt32(ends.count)
        slots[slot] = (hash, number)
        if Int(number) >= stampCapacity {
            let grown = UnsafeMutablePointer<UInt64>.allocate(capacity: stampCapacity * 2)
            grown.initialize(from: stamps, count: stampCapacity)
            (grown + stampCapacity).initialize(repeating: 0, count: stampCapacity)
            stamps.deallocate()
            stamps = grown
            stampCapacity *= 2
        }
        if ends.count * 2 > slots.count { rehash() }
        return number
    }

    private mutating func rehash() {
        let old = slots
        slots = Array(repeating: (0, 0), count: old.count * 2)
        let mask = slots.count - 1
        for entry in old where entry.number != 0 {
            var slot = Int(truncatingIfNeeded: entry.hash) & mask
            while slots[slot].number != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }
}
