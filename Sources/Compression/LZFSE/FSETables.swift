/// Decoding tables of finite state entropy (tANS) coding, built from a block's normalised symbol
/// frequencies.
///
/// A table of N states (a power of two) gives each symbol as many consecutive states as its
/// frequency. Decoding a symbol in state `s` emits the state's symbol, then reads a few bits from
/// the stream and adds them to the state's base to reach the next state. A symbol with frequency
/// `f` spreads its states over N: the lowest `2N/2^k - f` of them read `k` bits (where `k` is the
/// smallest shift with `f << k >= N`), the rest one bit fewer, so that every next state is below N.
enum FSETables {
    /// The number of bits and the base of the next state for the `index`-th state (from 0) of a
    /// symbol with frequency `frequency` in a table of `states` states; requires 0 < frequency <= states.
    @inline(__always)
    static func transition(index: Int, frequency: Int, states: Int) -> (bits: Int, base: Int) {
        let shift = UInt32(truncatingIfNeeded: frequency).leadingZeroBitCount - UInt32(truncatingIfNeeded: states).leadingZeroBitCount
        let wide = ((2 * states) >> shift) - frequency
        if index < wide {
            return (shift, ((frequency + index) << shift) - states)
        }
        return (shift - 1, (index - wide) << (shift - 1))
    }

    /// Checks that `frequencies` fit `states` states.
    static func check(_ frequencies: ArraySlice<UInt16>, states: Int, name: String) throws(StreamFault) {
        var total = 0
        for frequency in frequencies { total += Int(frequency) }
        guard total <= states else { throw StreamFault("\(name) frequencies add up to \(total), more than \(states) states") }
    }
}

/// The literal table: each state packs the emitted byte (bits 8-15), the bits to read (0-7) and
/// the next state's base (16-31). States no symbol claims (frequencies may add up to fewer than
/// the states) decode as byte 0 to state 0.
struct LiteralTable {
    static let states = 1024
    static let symbols = 256
    let entries: UnsafeMutablePointer<UInt32>

    init() {
        entries = .allocate(capacity: Self.states)
    }

    func deallocate() { entries.deallocate() }

    /// Fills the table from 256 frequencies (already checked to fit).
    func build(_ frequencies: ArraySlice<UInt16>) {
        entries.initialize(repeating: 0, count: Self.states)
        var state = 0
        for (symbol, frequency) in zip(0..., frequencies) where frequency > 0 {
            for index in 0..<Int(frequency) {
                let (bits, base) = FSETables.transition(index: index, frequency: Int(frequency), states: Self.states)
                entries[state] = UInt32(bits) | UInt32(symbol) << 8 | UInt32(base) << 16
                state += 1
            }
        }
    }
}

/// One state of an L, M or D table: the emitted value is `valueBase` plus `valueBits` extra bits
/// read with the next state's bits (`totalBits` in all, the extra bits lowest).
struct ValueEntry {
    var totalBits: UInt8
    var valueBits: UInt8
    var stateBase: UInt16
    var valueBase: UInt32
}

/// The tables of literal lengths (L), match lengths (M) and match distances (D).
struct ValueTable {
    let states: Int
    let entries: UnsafeMutablePointer<ValueEntry>

    init(states: Int) {
        self.states = states
        entries = .allocate(capacity: states)
    }

    func deallocate() { entries.deallocate() }

    /// Fills the table from the symbols' frequencies (already checked to fit), given each symbol's
    /// extra bits; symbol values start at 0 and each covers `1 << extraBits` values.
    func build(_ frequencies: ArraySlice<UInt16>, extraBits: [UInt8]) {
        entries.initialize(repeating: ValueEntry(totalBits: 0, valueBits: 0, stateBase: 0, valueBase: 0), count: states)
        var state = 0
        var valueBase: UInt32 = 0
        for (symbol, frequency) in zip(0..., frequencies) {
            let extra = extraBits[symbol]
            for index in 0..<Int(frequency) {
                let (bits, base) = FSETables.transition(index: index, frequency: Int(frequency), states: states)
                entries[state] = ValueEntry(totalBits: UInt8(bits) + extra, valueBits: extra, stateBase: UInt16(base), valueBase: valueBase)
                state += 1
            }
            valueBase += 1 << UInt32(extra)
        }
    }
}

/// The LZFSE alphabets of L, M and D: how many extra bits follow each symbol.
enum LMDAlphabet {
    /// Literal lengths 0-15 directly, then 16, 20, 28 and 60 with 2, 3, 5 and 8 extra bits.
    static let literalLengthBits: [UInt8] = Array(repeating: 0, count: 16) + [2, 3, 5, 8]
    /// Match lengths 0-15 directly, then 16, 24, 56 and 312 with 3, 5, 8 and 11 extra bits.
    static let matchLengthBits: [UInt8] = Array(repeating: 0, count: 16) + [3, 5, 8, 11]
    /// Distances in 64 symbols, four of each width: 0-3 with no extra bits, then 1, 2, … 15 bits.
    static let distanceBits: [UInt8] = (0..<64).map { UInt8($0 / 4) }

    static let literalLengthStates = 64
    static let matchLengthStates = 64
    static let distanceStates = 256
}
