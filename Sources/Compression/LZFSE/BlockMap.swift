import SystemSupport

/// The block structure of an LZFSE stream: each block's kind, payload and size, read from its
/// header without decoding it.
///
/// A first pass over the headers finds the output size (checked against `maxOutput` and against
/// what each block's payload can possibly hold) and that the stream is whole, so the decoding pass
/// allocates once and never grows.
enum BlockMap {
    static let endMagic: UInt32 = 0x2478_7662  // "bvx$"
    static let storedMagic: UInt32 = 0x2d78_7662  // "bvx-"
    static let version1Magic: UInt32 = 0x3178_7662  // "bvx1"
    static let version2Magic: UInt32 = 0x3278_7662  // "bvx2"
    static let lzvnMagic: UInt32 = 0x6e78_7662  // "bvxn"
    /// The most output one byte of LZVN can give (a 2-byte match opcode of 271 bytes).
    static let lzvnMaximumExpansion = 136
    /// The most output one L, M, D triple can give (315 literals and a 2359-byte match).
    static let tripleMaximumOutput = 315 + 2359

    enum Kind {
        case end
        case stored
        case lzvn
        case compressed(CompressedBlockHeader)
    }

    struct Block {
        var kind: Kind
        var payloadStart: Int
        var payloadCount: Int
        var rawCount: Int
        /// Where the next block starts.
        var next: Int
    }

    /// Reads the header of the block at `offset` and checks that its payload is in the input.
    static func block(_ input: UnsafePointer<UInt8>, at offset: Int, count: Int) throws(StreamFault) -> Block {
        let available = count - offset
        guard available >= 4 else { throw StreamFault("stream ends without its end-of-stream block (bvx$)") }
        let raw = UnsafeRawPointer(input + offset)
        let magic = ByteCopy.load32(raw)
        func need(_ bytes: Int, _ what: @autoclosure () -> String) throws(StreamFault) {
            guard bytes <= available else { throw StreamFault("\(what()) truncated: \(available) of \(bytes) bytes") }
        }
        switch magic {
        case endMagic:
            return Block(kind: .end, payloadStart: offset + 4, payloadCount: 0, rawCount: 0, next: offset + 4)
        case storedMagic:
            try need(8, "bvx- header")
            let rawCount = Int(ByteCopy.load32(raw + 4))
            try need(8 + rawCount, "bvx- block of \(rawCount) bytes")
            return Block(kind: .stored, payloadStart: offset + 8, payloadCount: rawCount, rawCount: rawCount, next: offset + 8 + rawCount)
        case lzvnMagic:
            try need(12, "bvxn header")
            let rawCount = Int(ByteCopy.load32(raw + 4)), payloadCount = Int(ByteCopy.load32(raw + 8))
            try need(12 + payloadCount, "bvxn block of \(payloadCount) payload bytes")
            guard rawCount <= payloadCount * lzvnMaximumExpansion else {
                throw StreamFault("bvxn block declares \(rawCount) bytes, more than its \(payloadCount) payload bytes can hold")
            }
            return Block(
                kind: .lzvn, payloadStart: offset + 12, payloadCount: payloadCount, rawCount: rawCount, next: offset + 12 + payloadCount)
        case version1Magic, version2Magic:
            let header =
                magic == version1Magic
                ? try CompressedBlockHeader.version1(input + offset, available: available)
                : try CompressedBlockHeader.version2(input + offset, available: available)
            try header.validate()
            let payloadCount = header.literalPayloadCount + header.lmdPayloadCount
            try need(header.headerSize + payloadCount, "compressed block of \(payloadCount) payload bytes")
            guard header.rawCount <= header.matchCount * tripleMaximumOutput else {
                throw StreamFault("compressed block declares \(header.rawCount) bytes, more than its \(header.matchCount) matches can hold")
            }
            let start = offset + header.headerSize
            return Block(
                kind: .compressed(header), payloadStart: start, payloadCount: payloadCount, rawCount: header.rawCount,
                next: start + payloadCount)
        default:
            let text = String(
                decoding: (0..<4).map { input[offset + $0] }.map { (32..<127).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
            throw StreamFault("unknown block magic '\(text)' (0x\(String(magic, radix: 16)))")
        }
    }

    /// The output size of the whole stream, after checking every block's header and payload.
    static func outputSize(_ input: UnsafePointer<UInt8>, count: Int, maxOutput: Int) throws -> Int {
        var offset = 0
        var total = 0
        var number = 0
        while true {
            let block: Block
            do { block = try self.block(input, at: offset, count: count) } catch {
                throw Diagnostic.lzfse(error.message, block: number, offset: offset)
            }
            if case .end = block.kind { return total }
            guard block.rawCount <= maxOutput - total else {
                throw Diagnostic.lzfse(
                    "decodes to more than maxOutput (\(maxOutput) bytes): \(total) before this block, which adds \(block.rawCount)",
                    block: number, offset: offset, isLimitExceeded: true)
            }
            total += block.rawCount
            offset = block.next
            number += 1
        }
    }
}
