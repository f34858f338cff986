/// How a run of the LZVN loop ended.
enum LZVNOutcome {
    case endOfStream
    /// The next opcode writes past `outputEnd`; the state is at that opcode.
    case needsRoom
}

/// The kinds of LZVN opcode, by first byte (see ``LZVNDecoder``).
enum LZVNOpcode: UInt8 {
    case smallDistance, mediumDistance, largeDistance, previousDistance
    case smallLiteral, largeLiteral, smallMatch, largeMatch
    case nop, end, undefined

    /// The kind of every first byte (made once, never freed).
    nonisolated(unsafe) static let table: UnsafePointer<LZVNOpcode> = {
        let table = UnsafeMutablePointer<LZVNOpcode>.allocate(capacity: 256)
        for byte in 0..<256 { (table + byte).initialize(to: kind(of: byte)) }
        return UnsafePointer(table)
    }()

    private static func kind(of byte: Int) -> LZVNOpcode {
        switch byte {
        case 0x06: return .end
        case 0x0E, 0x16: return .nop
        case 0x70...0x7F, 0xD0...0xDF: return .undefined
        case 0xA0...0xBF: return .mediumDistance
        case 0xE0: return .largeLiteral
        case 0xE1...0xEF: return .smallLiteral
        case 0xF0: return .largeMatch
        case 0xF1...0xFF: return .smallMatch
        default:
            switch byte & 7 {
            case 7: return .largeDistance
            case 6: return byte >= 0x46 ? .previousDistance : .undefined
            default: return .smallDistance
            }
        }
    }
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
        var source = input + state.source
        let sourceEnd = input + inputEnd
        var target = output + state.written
        let targetEnd = output + outputEnd
        var distance = state.distance
        let kinds = LZVNOpcode.table
        while true {
            guard source < sourceEnd else { throw fault(.noEnd, at: source - input) }
            let opcode = Int(source[0])
            var length = 1  // bytes of the opcode, before its literal
            var literalLength = 0
            var matchLength = 0
            var newDistance = -1  // -1: keep the previous distance
            let available = sourceEnd - source
            switch kinds[opcode] {
            case .smallDistance:  // LLMMMDDD DDDDDDDD
                guard available >= 2 else { throw fault(.truncated(opcode), at: source - input) }
                length = 2
                literalLength = opcode &>> 6
                matchLength = ((opcode &>> 3) & 7) &+ 3
                newDistance = (opcode & 7) &<< 8 | Int(source[1])
            case .mediumDistance:  // 101LLMMM DDDDDDMM DDDDDDDD
                guard available >= 3 else { throw fault(.truncated(opcode), at: source - input) }
                length = 3
                literalLength = (opcode &>> 3) & 3
                let extra = Int(ByteCopy.load16(UnsafeRawPointer(source + 1)))
                matchLength = ((opcode & 7) &<< 2 | extra & 3) &+ 3
                newDistance = extra &>> 2
            case .largeDistance:  // LLMMM111 DDDDDDDD DDDDDDDD
                guard available >= 3 else { throw fault(.truncated(opcode), at: source - input) }
                length = 3
                literalLength = opcode &>> 6
                matchLength = ((opcode &>> 3) & 7) &+ 3
                newDistance = Int(ByteCopy.load16(UnsafeRawPointer(source + 1)))
            case .previousDistance:  // LLMMM110
                literalLength = opcode &>> 6
                matchLength = ((opcode &>> 3) & 7) &+ 3
            case .smallLiteral:  // 1110LLLL
                literalLength = opcode & 15
            case .largeLiteral:  // 11100000 LLLLLLLL
                guard available >= 2 else { throw fault(.truncated(opcode), at: source - input) }
                length = 2
                literalLength = Int(source[1]) &+ 16
            case .smallMatch:  // 1111MMMM
                matchLength = opcode & 15
            case .largeMatch:  // 11110000 MMMMMMMM
                guard available >= 2 else { throw fault(.truncated(opcode), at: source - input) }
                length = 2
                matchLength = Int(source[1]) &+ 16
            case .nop:
                source += 1
                continue
            case .end:
                guard available >= 8 else { throw fault(.truncated(opcode), at: source - input) }
                state = LZVNState(source: source + 8 - input, written: target - output, distance: distance)
                return .endOfStream
            case .undefined:
                throw fault(.undefined(opcode), at: source - input)
            }
            guard length &+ literalLength <= available else { throw fault(.truncated(opcode), at: source - input) }
            guard literalLength &+ matchLength <= targetEnd - target else {
                state = LZVNState(source: source - input, written: target - output, distance: distance)
                return .needsRoom
            }
            let literal = source + length
            if literalLength > 0 {
                if sourceEnd - literal >= literalLength &+ 16 {
                    ByteCopy.wideCopy(target, literal, literalLength)
                } else {
                    ByteCopy.exactCopy(target, literal, literalLength)
                }
                target += literalLength
            }
            if newDistance >= 0 { distance = newDistance }
            if matchLength > 0 {
                guard distance > 0, distance <= target - output else {
                    throw fault(.distance(distance, written: target - output), at: source - input)
                }
                ByteCopy.match(target, length: matchLength, distance: distance)
                target += matchLength
            }
            source = literal + literalLength
        }
    }

    enum Fault {
        case noEnd
        case truncated(Int)
        case undefined(Int)
        case distance(Int, written: Int)
    }

    /// The error of a faulty opcode, made out of the loop.
    @inline(never)
    static func fault(_ fault: Fault, at offset: Int) -> StreamFault {
        switch fault {
        case .noEnd: return StreamFault("LZVN stream ends without its end-of-stream opcode", offset: offset)
        case .truncated(let opcode): return StreamFault("LZVN opcode 0x\(String(opcode, radix: 16)) truncated", offset: offset)
        case .undefined(let opcode): return StreamFault("LZVN opcode 0x\(String(opcode, radix: 16)) is undefined", offset: offset)
        case .distance(let distance, let written):
            return StreamFault("LZVN match \(distance) bytes back with \(written) written", offset: offset)
        }
    }
}
