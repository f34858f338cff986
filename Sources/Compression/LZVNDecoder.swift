/// Decodes LZVN, the byte-oriented LZ77 code LZFSE uses for small blocks (`bvxn`), also usable on
/// its own.
///
/// Each opcode's first byte says its kind; kinds carry a literal (copied from the stream), a match
/// (copied from earlier output) or both:
///
/// | first byte        | kind                 | literal | match length | distance               |
/// |-------------------|----------------------|---------|--------------|------------------------|
/// | `LLMMMDDD` (D<6)  | small distance, +1 B | L       | M + 3        | `DDD` and next byte    |
/// | `101LLMMM`        | medium distance, +2 B| L       | from 5 bits  | 14 bits                |
/// | `LLMMM111`        | large distance, +2 B | L       | M + 3        | next two bytes         |
/// | `LLMMM110` (≥0x46)| previous distance    | L       | M + 3        | the last one           |
/// | `1110LLLL`/`0xE0` | literal              | 1-15 / next byte + 16 | |                      |
/// | `1111MMMM`/`0xF0` | match                |         | 1-15 / next byte + 16 | the last one  |
/// | `0x0E`, `0x16`    | nop                  |         |              |                        |
/// | `0x06` + 7 bytes  | end of stream        |         |              |                        |
///
/// Other first bytes (`0x1E`-`0x3E` ending `110`, `0x70`-`0x7F`, `0xD0`-`0xDF`) are invalid.
public enum LZVNDecoder {
    /// Decodes an LZVN stream up to its end-of-stream opcode (bytes after it are ignored).
    ///
    /// - Parameter maxOutput: the most bytes the stream may decode to; more is an error.
    /// - Throws: ``LZFSEError`` naming the byte offset of the faulty opcode.
    public static func decode(_ input: UnsafeRawBufferPointer, maxOutput: Int) throws -> [UInt8] {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else {
            throw LZFSEError("empty LZVN stream: no end-of-stream opcode", offset: 0)
        }
        var capacity = min(max(maxOutput, 0), max(4096, input.count * 4))
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + ByteCopy.slack)
        defer { buffer.deallocate() }
        var state = LZVNState()
        while true {
            let outcome: LZVNOutcome
            do {
                outcome = try LZVNState.run(&state, input: base, inputEnd: input.count, output: buffer, outputEnd: capacity)
            } catch {
                throw LZFSEError(error.message, offset: error.offset)
            }
            if outcome == .endOfStream { break }
            guard capacity < maxOutput else {
                throw LZFSEError("decodes to more than maxOutput (\(maxOutput) bytes)", offset: state.source, isLimitExceeded: true)
            }
            capacity = min(maxOutput, capacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + ByteCopy.slack)
            grown.initialize(from: buffer, count: state.written)
            buffer.deallocate()
            buffer = grown
        }
        return Array(UnsafeBufferPointer(start: buffer, count: state.written))
    }

    /// Decodes an LZVN stream held in any contiguous or non-contiguous bytes (see ``decode(_:maxOutput:)-(UnsafeRawBufferPointer,_)``).
    public static func decode<Bytes: Collection<UInt8>>(_ input: Bytes, maxOutput: Int) throws -> [UInt8] {
        if let result = try input.withContiguousStorageIfAvailable({ try decode(UnsafeRawBufferPointer($0), maxOutput: maxOutput) }) {
            return result
        }
        return try Array(input).withUnsafeBytes { try decode($0, maxOutput: maxOutput) }
    }
}

/// How a run of the LZVN loop ended.
enum LZVNOutcome {
    case endOfStream
    /// The next opcode writes past `outputEnd`; the state is at that opcode.
    case needsRoom
}

/// Where an LZVN decode is, between opcodes: it can stop for more room and carry on.
struct LZVNState {
    /// Offset of the next opcode in the input.
    var source = 0
    /// Bytes of output written (matches may reach back to the start of the output).
    var written = 0
    /// The distance of the last match, which "previous distance" opcodes repeat (0: none yet).
    var distance = 0

    /// Decodes opcodes from `state.source` until the end-of-stream opcode or one that would write
    /// past `outputEnd`; `output` has `ByteCopy.slack` bytes of room past `outputEnd`.
    static func run(
        _ state: inout LZVNState, input: UnsafePointer<UInt8>, inputEnd: Int,
        output: UnsafeMutablePointer<UInt8>, outputEnd: Int
    ) throws(StreamFault) -> LZVNOutcome {
        var source = state.source
        var written = state.written
        var distance = state.distance
        defer { state = LZVNState(source: source, written: written, distance: distance) }
        while true {
            guard source < inputEnd else { throw StreamFault("LZVN stream ends without its end-of-stream opcode", offset: source) }
            let opcode = Int(input[source])
            var length = 1  // bytes of the opcode, before its literal
            var literalLength = 0
            var matchLength = 0
            var newDistance = -1  // -1: keep the previous distance
            @inline(__always) func need(_ count: Int) throws(StreamFault) {
                guard count <= inputEnd &- source else {
                    throw StreamFault("LZVN opcode 0x\(String(opcode, radix: 16)) truncated", offset: source)
                }
            }
            switch opcode {
            case 0x06:
                try need(8)
                source &+= 8
                return .endOfStream
            case 0x0E, 0x16:
                source &+= 1
                continue
            case 0x70...0x7F, 0xD0...0xDF:
                throw StreamFault("LZVN opcode 0x\(String(opcode, radix: 16)) is undefined", offset: source)
            case 0xA0...0xBF:  // 101LLMMM DDDDDDMM DDDDDDDD
                length = 3
                literalLength = (opcode >> 3) & 3
                try need(3)
                let extra = Int(ByteCopy.load16(UnsafeRawPointer(input + source + 1)))
                matchLength = ((opcode & 7) << 2 | extra & 3) + 3
                newDistance = extra >> 2
            case 0xE0:
                length = 2
                try need(2)
                literalLength = Int(input[source + 1]) + 16
            case 0xE1...0xEF:
                literalLength = opcode & 15
            case 0xF0:
                length = 2
                try need(2)
                matchLength = Int(input[source + 1]) + 16
            case 0xF1...0xFF:
                matchLength = opcode & 15
            default:
                literalLength = opcode >> 6
                matchLength = ((opcode >> 3) & 7) + 3
                switch opcode & 7 {
                case 7:
                    length = 3
                    try need(3)
                    newDistance = Int(ByteCopy.load16(UnsafeRawPointer(input + source + 1)))
                case 6:
                    guard opcode >= 0x46 else {
                        throw StreamFault("LZVN opcode 0x\(String(opcode, radix: 16)) is undefined", offset: source)
                    }
                default:
                    length = 2
                    try need(2)
                    newDistance = (opcode & 7) << 8 | Int(input[source + 1])
                }
            }
            try need(length &+ literalLength)
            guard literalLength &+ matchLength <= outputEnd &- written else { return .needsRoom }
            let literalStart = source &+ length
            if literalLength > 0 {
                if inputEnd &- literalStart >= literalLength &+ 16 {
                    ByteCopy.wideCopy(output + written, input + literalStart, literalLength)
                } else {
                    ByteCopy.exactCopy(output + written, input + literalStart, literalLength)
                }
                written &+= literalLength
            }
            if newDistance >= 0 { distance = newDistance }
            if matchLength > 0 {
                guard distance > 0, distance <= written else {
                    throw StreamFault("LZVN match \(distance) bytes back with \(written) written", offset: source)
                }
                ByteCopy.match(output + written, length: matchLength, distance: distance)
                written &+= matchLength
            }
            source = literalStart &+ literalLength
        }
    }
}
