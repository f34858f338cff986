/// Decodes LZFSE compressed blocks (`bvx1`, `bvx2`): first every literal byte of the block from
/// four interleaved FSE streams, then the L, M, D triples, each emitting L literals and then a
/// match of M bytes from D bytes back (D 0 repeating the previous distance).
///
/// Holds the tables and the literal buffer, reused from block to block; `deallocate()` frees them.
struct CompressedBlockDecoder {
    private let literalTable = LiteralTable()
    private let lengthTable = ValueTable(states: LMDAlphabet.literalLengthStates)
    private let matchTable = ValueTable(states: LMDAlphabet.matchLengthStates)
    private let distanceTable = ValueTable(states: LMDAlphabet.distanceStates)
    /// Room for the most literals a block may hold, plus slack for wide copies.
    private let literals = UnsafeMutablePointer<UInt8>.allocate(capacity: CompressedBlockHeader.maximumLiterals + ByteCopy.slack)

    func deallocate() {
        literalTable.deallocate()
        lengthTable.deallocate()
        matchTable.deallocate()
        distanceTable.deallocate()
        literals.deallocate()
    }

    /// Decodes the block whose header (already validated) starts at `start` in `input`, its
    /// payloads being in `input`, writing exactly `header.rawCount` bytes at `output + written`;
    /// matches may reach back to `output`. The output has `ByteCopy.slack` bytes of room past the block.
    func decode(
        _ header: CompressedBlockHeader, input: UnsafePointer<UInt8>, start: Int,
        output: UnsafeMutablePointer<UInt8>, written: Int
    ) throws(StreamFault) {
        literalTable.build(header.literalFrequencies)
        lengthTable.build(header.lengthFrequencies, extraBits: LMDAlphabet.literalLengthBits)
        matchTable.build(header.matchFrequencies, extraBits: LMDAlphabet.matchLengthBits)
        distanceTable.build(header.distanceFrequencies, extraBits: LMDAlphabet.distanceBits)
        let literalStart = start + header.headerSize
        let lmdStart = literalStart + header.literalPayloadCount
        let literalCount = try decodeLiterals(header, input: input, payloadStart: literalStart, payloadEnd: lmdStart)
        try executeTriples(
            header, input: input, payloadStart: lmdStart, payloadEnd: lmdStart + header.lmdPayloadCount,
            literalCount: literalCount, output: output, written: written)
    }

    /// Decodes the literals into `literals`; returns how many (the header's count rounded up to 4).
    private func decodeLiterals(
        _ header: CompressedBlockHeader, input: UnsafePointer<UInt8>, payloadStart: Int, payloadEnd: Int
    ) throws(StreamFault) -> Int {
        // The stream may be shorter than a word: like the reference decoder, let the reader's
        // look-ahead reach into the 8 header bytes before the payload.
        var reader = try BackwardBitReader(base: input, end: payloadEnd, floor: payloadStart - 8, finalBits: header.literalFinalBits)
        var (state0, state1, state2, state3) = header.literalStates
        let table = literalTable.entries
        let count = (header.literalCount + 3) & ~3
        var index = 0
        @inline(__always) func step(_ state: inout Int, _ reader: inout BackwardBitReader) -> UInt8 {
            let entry = table[state]
            state = Int(entry >> 16) &+ Int(reader.take(Int(entry & 0xff)))
            return UInt8(truncatingIfNeeded: entry >> 8)
        }
        while index < count {
            try reader.refill()
            literals[index] = step(&state0, &reader)
            literals[index &+ 1] = step(&state1, &reader)
            literals[index &+ 2] = step(&state2, &reader)
            literals[index &+ 3] = step(&state3, &reader)
            index &+= 4
        }
        return count
    }

    /// Decodes the L, M, D triples and writes their literals and matches.
    private func executeTriples(
        _ header: CompressedBlockHeader, input: UnsafePointer<UInt8>, payloadStart: Int, payloadEnd: Int,
        literalCount: Int, output: UnsafeMutablePointer<UInt8>, written: Int
    ) throws(StreamFault) {
        var reader = try BackwardBitReader(base: input, end: payloadEnd, floor: payloadStart, finalBits: header.lmdFinalBits)
        var lengthState = header.literalLengthState
        var matchState = header.matchLengthState
        var distanceState = header.distanceState
        let lengths = lengthTable.entries, matches = matchTable.entries, distances = distanceTable.entries
        let end = written + header.rawCount
        var position = written
        var literal = 0
        var distance = 0
        @inline(__always) func value(_ table: UnsafeMutablePointer<ValueEntry>, _ state: inout Int, _ reader: inout BackwardBitReader)
            -> Int
        {
            let entry = table[state]
            let bits = reader.take(Int(entry.totalBits))
            state = Int(entry.stateBase) &+ Int(truncatingIfNeeded: bits &>> UInt64(entry.valueBits))
            return Int(entry.valueBase) &+ Int(truncatingIfNeeded: bits & ((1 &<< UInt64(entry.valueBits)) &- 1))
        }
        for triple in 0..<header.matchCount {
            try reader.refill()
            let literalLength = value(lengths, &lengthState, &reader)
            let matchLength = value(matches, &matchState, &reader)
            let newDistance = value(distances, &distanceState, &reader)
            if newDistance != 0 { distance = newDistance }
            guard literalLength <= literalCount &- literal else {
                throw StreamFault("triple \(triple) takes \(literalLength) literals, \(literalCount - literal) left")
            }
            guard literalLength &+ matchLength <= end &- position else {
                throw StreamFault("triple \(triple) writes past the block's \(header.rawCount) bytes")
            }
            ByteCopy.wideCopy(output + position, literals + literal, literalLength)
            position &+= literalLength
            literal &+= literalLength
            if matchLength > 0 {
                guard distance > 0, distance <= position else {
                    throw StreamFault("triple \(triple) matches \(distance) bytes back, \(position) written")
                }
                ByteCopy.match(output + position, length: matchLength, distance: distance)
                position &+= matchLength
            }
        }
        guard position == end else { throw StreamFault("block writes \(position - written) of the \(header.rawCount) bytes it declares") }
    }
}
