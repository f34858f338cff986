/// Walks a raw deflate stream's blocks without producing output, to find where its final
/// block starts and where the stream ends, to the bit.
///
/// This is what lets independently compressed chunks of one file be joined into a single
/// deflate stream (see `DeflateChunk`): libdeflate compresses whole buffers and always marks
/// its last block final, so to continue after it the final bit must be cleared and the stream
/// byte-aligned with an empty stored block, as zlib's sync flush would have done.
struct DeflateBlockScanner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Bit offset of the final block's header and of the end of the stream.
    struct Layout: Equatable {
        var finalBlockBit: Int
        var endBit: Int
    }

    private let bytes: UnsafeRawBufferPointer
    private var position = 0  // in bits
    /// The longest literal/length code of the dynamic blocks scanned so far (for tests).
    private(set) var longestLiteralCode = 0
    /// Codes up to this long are found in the primary table, longer ones through a subtable.
    static var primaryBitsAtMost: Int { Table.widestPrimary }

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inline(__always) private func peek(_ count: Int) -> UInt32 { Self.bits(count, at: position, in: bytes) }

    /// Up to 24 bits of `bytes` LSB-first from bit `position`; bytes past the end read as zero.
    @inline(__always)
    private static func bits(_ count: Int, at position: Int, in bytes: UnsafeRawBufferPointer) -> UInt32 {
        let firstByte = position >> 3
        let value: UInt32
        if firstByte + 4 <= bytes.count {
            value = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: firstByte, as: UInt32.self))
        } else {
            var partial: UInt32 = 0
            for index in 0..<4 where firstByte + index < bytes.count {
                partial |= UInt32(bytes[firstByte + index]) << UInt32(index * 8)
            }
            value = partial
        }
        return (value >> UInt32(position & 7)) & ((1 << UInt32(count)) - 1)
    }

    @inline(__always) private mutating func read(_ count: Int) throws -> UInt32 {
        guard position + count <= bytes.count * 8 else { throw Failure(description: "the deflate stream is truncated") }
        let value = peek(count)
        position += count
        return value
    }

    /// A canonical Huffman decoding table in two levels: a primary table indexed by the next
    /// `primaryBits` bits (LSB first), small enough to stay in the L1 cache, and for codes longer
    /// than that, subtables of `subtableBits` more bits behind the primary entries they share.
    private struct Table {
        /// Direct entries: symbol << 8 | bits to skip (the code's length plus the symbol's extra
        /// bits; in a subtable, less the primary bits). Subtable links: `link` | start << 8.
        /// 0 means no code.
        var entries: [UInt32]
        var maxLength: Int
        var primaryBits: Int
        var subtableBits: Int
        static let link: UInt32 = 1 << 31
        static let widestPrimary = 10

        /// `extraBits` gives the number of extra bits that follow each symbol's code.
        init(lengths: ArraySlice<UInt8>, extraBits: (Int) -> Int = { _ in 0 }) throws {
            maxLength = Int(lengths.max() ?? 0)
            primaryBits = min(maxLength, Self.widestPrimary)
            subtableBits = maxLength - primaryBits
            guard maxLength > 0 else { entries = []; return }
            var counts = [Int](repeating: 0, count: 16)
            for length in lengths where length > 0 { counts[Int(length)] += 1 }
            var nextCode = [Int](repeating: 0, count: 16)
            var code = 0
            for bits in 1...15 {
                code = (code + counts[bits - 1]) << 1
                nextCode[bits] = code
            }
            entries = [UInt32](repeating: 0, count: 1 << primaryBits)
            let primaryMask = (1 << primaryBits) - 1
            for (offset, length) in lengths.enumerated() where length > 0 {
                let length = Int(length)
                let symbolCode = nextCode[length]
                nextCode[length] += 1
                guard symbolCode < (1 << length) else { throw Failure(description: "over-subscribed Huffman code") }
                var reversed = 0
                for bit in 0..<length where symbolCode & (1 << bit) != 0 { reversed |= 1 << (length - 1 - bit) }
                if length <= primaryBits {
                    let entry = UInt32(offset) << 8 | UInt32(length + extraBits(offset))
                    var index = reversed
                    while index <= primaryMask {
                        guard entries[index] == 0 else { throw Failure(description: "over-subscribed Huffman code") }
                        entries[index] = entry
                        index += 1 << length
                    }
                    continue
                }
                // The code's first `primaryBits` bits pick the primary entry; the rest index its subtable.
                let primary = reversed & primaryMask
                if entries[primary] & Self.link == 0 {
                    guard entries[primary] == 0 else { throw Failure(description: "over-subscribed Huffman code") }
                    entries[primary] = Self.link | UInt32(entries.count) << 8
                    entries += repeatElement(0, count: 1 << subtableBits)
                }
                let start = Int((entries[primary] & ~Self.link) >> 8)
                let entry = UInt32(offset) << 8 | UInt32(length - primaryBits + extraBits(offset))
                var index = reversed >> primaryBits
                while index < 1 << subtableBits {
                    guard entries[start + index] == 0 else { throw Failure(description: "over-subscribed Huffman code") }
                    entries[start + index] = entry
                    index += 1 << (length - primaryBits)
                }
            }
        }
    }

    /// Decodes one symbol of the code-length code (which has no extra bits). Its codes are at most
    /// 7 bits long (their lengths are 3-bit fields), so its table has no subtables.
    @inline(__always) private mutating func decode(_ table: Table) throws -> Int {
        guard table.maxLength > 0 else { throw Failure(description: "an empty Huffman code was used") }
        let entry = table.entries.withUnsafeBufferPointer { $0[Int(peek(table.primaryBits))] }
        guard entry != 0, position + Int(entry & 0xFF) <= bytes.count * 8 else {
            throw Failure(description: "invalid Huffman code at bit \(position)")
        }
        position += Int(entry & 0xFF)
        return Int(entry >> 8)
    }

    private static let lengthExtraBits: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceExtraBits: [Int] = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13
    ]
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Extra bits after a literal/length symbol (none after literals, the end of block or invalid symbols).
    private static func lengthExtra(_ symbol: Int) -> Int { (257...285).contains(symbol) ? lengthExtraBits[symbol - 257] : 0 }
    /// Extra bits after a distance symbol (none after the invalid 30 and 31).
    private static func distanceExtra(_ symbol: Int) -> Int { symbol < 30 ? distanceExtraBits[symbol] : 0 }

    private static let fixedTables: (Table, Table) = {
        var lengths = [UInt8](repeating: 8, count: 288)
        for index in 144..<256 { lengths[index] = 9 }
        for index in 256..<280 { lengths[index] = 7 }
        return (
            try! Table(lengths: lengths[...], extraBits: lengthExtra),
            try! Table(lengths: [UInt8](repeating: 5, count: 30)[...], extraBits: distanceExtra)
        )
    }()

    /// Scans every block and returns where the final one starts and where the stream ends.
    mutating func scan() throws -> Layout {
        while true {
            let header = position
            let final = try read(1)
            let type = try read(2)
            switch type {
            case 0:
                position = (position + 7) & ~7
                let length = Int(try read(16))
                let complement = Int(try read(16))
                guard length ^ 0xFFFF == complement else { throw Failure(description: "stored block length check failed") }
                position += length * 8
                guard position <= bytes.count * 8 else { throw Failure(description: "the deflate stream is truncated") }
            case 1:
                try skipSymbols(Self.fixedTables.0, Self.fixedTables.1)
            case 2:
                let literalCount = Int(try read(5)) + 257
                let distanceCount = Int(try read(5)) + 1
                let codeLengthCount = Int(try read(4)) + 4
                var codeLengthLengths = [UInt8](repeating: 0, count: 19)
                for index in 0..<codeLengthCount { codeLengthLengths[Self.codeLengthOrder[index]] = UInt8(try read(3)) }
                let codeLengthTable = try Table(lengths: codeLengthLengths[...])
                var lengths = [UInt8]()
                lengths.reserveCapacity(literalCount + distanceCount)
                while lengths.count < literalCount + distanceCount {
                    let symbol = try decode(codeLengthTable)
                    switch symbol {
                    case 0..<16: lengths.append(UInt8(symbol))
                    case 16:
                        guard let previous = lengths.last else { throw Failure(description: "repeat with no previous length") }
                        lengths += repeatElement(previous, count: 3 + Int(try read(2)))
                    case 17: lengths += repeatElement(0, count: 3 + Int(try read(3)))
                    default: lengths += repeatElement(0, count: 11 + Int(try read(7)))
                    }
                }
                guard lengths.count == literalCount + distanceCount else { throw Failure(description: "code lengths overflow") }
                let literals = try Table(lengths: lengths[0..<literalCount], extraBits: Self.lengthExtra)
                longestLiteralCode = max(longestLiteralCode, literals.maxLength)
                try skipSymbols(literals, try Table(lengths: lengths[literalCount...], extraBits: Self.distanceExtra))
            default:
                throw Failure(description: "invalid block type 3")
            }
            if final == 1 { return Layout(finalBlockBit: header, endBit: position) }
        }
    }

    /// Skips a block's symbols up to its end-of-block code. Past the end of the data `peek` reads
    /// zeros, so running off the end is caught once a symbol has taken the position beyond it.
    private mutating func skipSymbols(_ literals: Table, _ distances: Table) throws {
        guard literals.maxLength > 0 else { throw Failure(description: "an empty Huffman code was used") }
        // Locals rather than properties, so the loop keeps them in registers.
        let bytes = self.bytes
        let end = bytes.count * 8
        var position = self.position
        defer { self.position = position }
        @inline(__always) func bits(_ count: Int) -> Int { Int(Self.bits(count, at: position, in: bytes)) }
        @inline(__always) func lookup(_ table: Table, _ codes: UnsafeBufferPointer<UInt32>) -> UInt32 {
            let entry = codes[bits(table.primaryBits)]
            guard entry & Table.link != 0 else { return entry }
            position += table.primaryBits
            return codes[Int((entry & ~Table.link) >> 8) + bits(table.subtableBits)]
        }
        try literals.entries.withUnsafeBufferPointer { lengthCodes in
            try distances.entries.withUnsafeBufferPointer { distanceCodes in
                while true {
                    let entry = lookup(literals, lengthCodes)
                    guard entry != 0 else { throw Failure(description: "invalid Huffman code at bit \(position)") }
                    position += Int(entry & 0xFF)
                    guard position <= end else { throw Failure(description: "the deflate stream is truncated") }
                    let symbol = entry >> 8
                    if symbol < 256 { continue }
                    if symbol == 256 { return }
                    guard symbol <= 285 else { throw Failure(description: "invalid length symbol \(symbol)") }
                    guard distances.maxLength > 0 else { throw Failure(description: "an empty Huffman code was used") }
                    let distance = lookup(distances, distanceCodes)
                    guard distance != 0 else { throw Failure(description: "invalid Huffman code at bit \(position)") }
                    guard distance >> 8 < 30 else { throw Failure(description: "invalid distance symbol \(distance >> 8)") }
                    position += Int(distance & 0xFF)
                    guard position <= end else { throw Failure(description: "the deflate stream is truncated") }
                }
            }
        }
    }
}
