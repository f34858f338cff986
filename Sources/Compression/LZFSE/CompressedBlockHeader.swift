/// The header of an LZFSE compressed block, `bvx1` (fields stored plainly) or `bvx2` (fields packed
/// into three 64-bit words, frequencies in a variable-length code), read into one form.
struct CompressedBlockHeader {
    /// Output bytes of the block.
    var rawCount = 0
    /// Literal bytes the block decodes (a multiple of 4 in practice: four interleaved streams).
    var literalCount = 0
    var literalPayloadCount = 0
    /// L, M, D triples the block holds.
    var matchCount = 0
    var lmdPayloadCount = 0
    /// Bits of the last byte of each payload the encoder left unused, as -7...0.
    var literalFinalBits = 0
    var lmdFinalBits = 0
    var literalStates: (Int, Int, Int, Int) = (0, 0, 0, 0)
    var literalLengthState = 0
    var matchLengthState = 0
    var distanceState = 0
    /// The frequencies of L (20), M (20), D (64) and literal (256) symbols, in that order.
    var frequencies = [UInt16](repeating: 0, count: CompressedBlockHeader.frequencyCount)
    /// Bytes of the header itself; the literal payload follows, then the L, M, D payload.
    var headerSize = 0

    static let frequencyCount = 20 + 20 + 64 + 256
    /// `bvx1`: 7 counts, literal bits, 4 literal states, L, M, D bits and states, 360 frequencies, padded to 4.
    static let version1Size = 772
    /// `bvx2` without its frequencies: magic, raw count, three packed words.
    static let version2FixedSize = 32
    static let maximumLiterals = 40000
    static let maximumMatches = 10000

    var lengthFrequencies: ArraySlice<UInt16> { frequencies[0..<20] }
    var matchFrequencies: ArraySlice<UInt16> { frequencies[20..<40] }
    var distanceFrequencies: ArraySlice<UInt16> { frequencies[40..<104] }
    var literalFrequencies: ArraySlice<UInt16> { frequencies[104..<360] }

    /// Reads the `bvx2` header at `start` (its magic), of which `available` bytes are in the input.
    static func version2(_ bytes: UnsafePointer<UInt8>, available: Int) throws(StreamFault) -> CompressedBlockHeader {
        guard available >= version2FixedSize else { throw StreamFault("bvx2 header truncated: \(available) of \(version2FixedSize) bytes") }
        let raw = UnsafeRawPointer(bytes)
        let word0 = ByteCopy.load64(raw + 8), word1 = ByteCopy.load64(raw + 16), word2 = ByteCopy.load64(raw + 24)
        func field(_ word: UInt64, _ offset: UInt64, _ width: UInt64) -> Int { Int((word >> offset) & ((1 << width) - 1)) }
        var header = CompressedBlockHeader()
        header.rawCount = Int(ByteCopy.load32(raw + 4))
        header.literalCount = field(word0, 0, 20)
        header.literalPayloadCount = field(word0, 20, 20)
        header.matchCount = field(word0, 40, 20)
        header.literalFinalBits = field(word0, 60, 3) - 7
        header.literalStates = (field(word1, 0, 10), field(word1, 10, 10), field(word1, 20, 10), field(word1, 30, 10))
        header.lmdPayloadCount = field(word1, 40, 20)
        header.lmdFinalBits = field(word1, 60, 3) - 7
        header.headerSize = field(word2, 0, 32)
        header.literalLengthState = field(word2, 32, 10)
        header.matchLengthState = field(word2, 42, 10)
        header.distanceState = field(word2, 52, 10)
        guard header.headerSize >= version2FixedSize else {
            throw StreamFault("bvx2 header size \(header.headerSize) is less than \(version2FixedSize)")
        }
        guard header.headerSize <= available else { throw StreamFault("bvx2 header truncated: \(available) of \(header.headerSize) bytes") }
        if header.headerSize > version2FixedSize {
            try header.readPackedFrequencies(bytes + version2FixedSize, count: header.headerSize - version2FixedSize)
        }
        return header
    }

    /// Reads the `bvx1` header at `start`, of which `available` bytes are in the input.
    static func version1(_ bytes: UnsafePointer<UInt8>, available: Int) throws(StreamFault) -> CompressedBlockHeader {
        guard available >= version1Size else { throw StreamFault("bvx1 header truncated: \(available) of \(version1Size) bytes") }
        let raw = UnsafeRawPointer(bytes)
        func word(_ offset: Int) -> Int { Int(ByteCopy.load32(raw + offset)) }
        func half(_ offset: Int) -> Int { Int(ByteCopy.load16(raw + offset)) }
        var header = CompressedBlockHeader()
        header.rawCount = word(4)
        header.literalCount = word(12)
        header.matchCount = word(16)
        header.literalPayloadCount = word(20)
        header.lmdPayloadCount = word(24)
        header.literalFinalBits = Int(Int32(bitPattern: UInt32(word(28))))
        header.literalStates = (half(32), half(34), half(36), half(38))
        header.lmdFinalBits = Int(Int32(bitPattern: UInt32(word(40))))
        header.literalLengthState = half(44)
        header.matchLengthState = half(46)
        header.distanceState = half(48)
        for index in 0..<frequencyCount { header.frequencies[index] = UInt16(half(50 + 2 * index)) }
        header.headerSize = version1Size
        return header
    }

    /// Decodes the frequency code of `bvx2` headers: read from the lowest bit of each byte up, a
    /// value is `x0` (2 bits: 0 or 1), `xx1`-ending 3-bit codes (2, 3), 5-bit codes ending `011`
    /// (4-7), 8-bit codes ending `0111` (8-23) and 14-bit codes ending `1111` (24-1047).
    private mutating func readPackedFrequencies(_ bytes: UnsafePointer<UInt8>, count: Int) throws(StreamFault) {
        var bits: UInt64 = 0
        var bitCount = 0
        var next = 0
        for index in 0..<Self.frequencyCount {
            while bitCount <= 56 && next < count {
                bits |= UInt64(bytes[next]) << UInt64(bitCount)
                bitCount += 8
                next += 1
            }
            let (value, length) = Self.frequencyCode(bits)
            guard length <= bitCount else { throw StreamFault("bvx2 frequency table ends inside value \(index)") }
            frequencies[index] = value
            bits >>= UInt64(length)
            bitCount -= length
        }
        guard next == count, bitCount < 8 else {
            throw StreamFault("bvx2 frequency table leaves \(count - next) bytes and \(bitCount) bits of its header unread")
        }
    }

    /// The value and length in bits of the frequency code at the bottom of `bits`.
    @inline(__always)
    private static func frequencyCode(_ bits: UInt64) -> (UInt16, Int) {
        if bits & 1 == 0 { return (UInt16(bits >> 1 & 1), 2) }
        if bits & 3 == 1 { return (2 + UInt16(bits >> 2 & 1), 3) }
        if bits & 7 == 3 { return (4 + UInt16(bits >> 3 & 3), 5) }
        if bits & 15 == 7 { return (8 + UInt16(bits >> 4 & 15), 8) }
        return (24 + UInt16(bits >> 4 & 0x3ff), 14)
    }

    /// Checks the counts and states against the format's limits and the frequencies against their tables.
    func validate() throws(StreamFault) {
        guard literalCount <= Self.maximumLiterals else { throw StreamFault("\(literalCount) literals, more than \(Self.maximumLiterals)") }
        guard matchCount <= Self.maximumMatches else { throw StreamFault("\(matchCount) matches, more than \(Self.maximumMatches)") }
        for state in [literalStates.0, literalStates.1, literalStates.2, literalStates.3] where state >= LiteralTable.states {
            throw StreamFault("literal state \(state) is not below \(LiteralTable.states)")
        }
        guard literalLengthState < LMDAlphabet.literalLengthStates else {
            throw StreamFault("L state \(literalLengthState) is not below 64")
        }
        guard matchLengthState < LMDAlphabet.matchLengthStates else { throw StreamFault("M state \(matchLengthState) is not below 64") }
        guard distanceState < LMDAlphabet.distanceStates else { throw StreamFault("D state \(distanceState) is not below 256") }
        try FSETables.check(lengthFrequencies, states: LMDAlphabet.literalLengthStates, name: "L")
        try FSETables.check(matchFrequencies, states: LMDAlphabet.matchLengthStates, name: "M")
        try FSETables.check(distanceFrequencies, states: LMDAlphabet.distanceStates, name: "D")
        try FSETables.check(literalFrequencies, states: LiteralTable.states, name: "literal")
    }
}
