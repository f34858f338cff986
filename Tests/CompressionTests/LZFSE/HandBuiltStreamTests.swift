import SystemSupport
import TestSupport
import Testing

@testable import Compression

/// Streams assembled here byte by byte, so they need no oracle: every LZVN opcode kind, stored
/// blocks, and the refusals that name what is wrong and where.
@Suite struct HandBuiltStreamTests {
    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static let end = Array("bvx$".utf8)

    static func stored(_ bytes: [UInt8]) -> [UInt8] { Array("bvx-".utf8) + le32(bytes.count) + bytes }
    static func lzvnBlock(_ payload: [UInt8], rawCount: Int) -> [UInt8] {
        Array("bvxn".utf8) + le32(rawCount) + le32(payload.count) + payload
    }
    static let endOfStream: [UInt8] = [0x06, 0, 0, 0, 0, 0, 0, 0]

    /// Every opcode kind, with what it writes.
    static let everyOpcode: (payload: [UInt8], output: [UInt8]) = {
        var payload: [UInt8] = []
        var output: [UInt8] = []
        // Small literal (1110LLLL): "abcdefgh".
        payload += [0xE8] + Array("abcdefgh".utf8)
        output += Array("abcdefgh".utf8)
        // Small distance (LLMMMDDD DDDDDDDD): 2 literals "XY", match 4 from 10 back -> "abcd" … output so far "abcdefghXY".
        payload += [0b10_001_000, 10] + Array("XY".utf8)
        output += Array("XY".utf8) + Array("abcd".utf8)
        // Nop, both forms.
        payload += [0x0E, 0x16]
        // Previous distance (LLMMM110): 1 literal "Z", match 3 from 10 back.
        payload += [0b01_000_110] + Array("Z".utf8)
        output += Array("Z".utf8)
        for _ in 0..<3 { output.append(output[output.count - 10]) }
        // Small match (1111MMMM): 5 bytes from the previous distance (10).
        payload += [0xF5]
        for _ in 0..<5 { output.append(output[output.count - 10]) }
        // Large literal (0xE0 L-16): 20 bytes.
        let twenty = Array("0123456789ABCDEFGHIJ".utf8)
        payload += [0xE0, 4] + twenty
        output += twenty
        // Medium distance (101LLMMM DDDDDDMM DDDDDDDD): no literal, match 3 + (0b010 << 2 | 0b01) = 12 from 25 back.
        let medium = 25 << 2 | 0b01
        payload += [0b101_00_010, UInt8(medium & 0xFF), UInt8(medium >> 8)]
        for _ in 0..<12 { output.append(output[output.count - 25]) }
        // Large distance (LLMMM111 DDDDDDDD DDDDDDDD): no literal, match 3 + 2 = 5 from 40 back.
        payload += [0b00_010_111, 40, 0]
        for _ in 0..<5 { output.append(output[output.count - 40]) }
        // Large match (0xF0 M-16): 30 bytes from the previous distance (40), overlapping nothing.
        payload += [0xF0, 14]
        for _ in 0..<30 { output.append(output[output.count - 40]) }
        // An overlapping run: 1 literal then a match of 8 from 1 back.
        payload += [0b01_101_000, 1] + Array("r".utf8)  // (L 1 with M 9 or 10 is undefined: 0x70-0x7F)
        output += Array("r".utf8) + Array(repeating: UInt8(ascii: "r"), count: 8)
        payload += endOfStream
        return (payload, output)
    }()

    @Test func storedBlocks() throws {
        let stream = Self.stored(Array("hello".utf8)) + Self.stored([]) + Self.stored(Array(" world".utf8)) + Self.end
        #expect(try LZFSEDecoder.decode(stream, maxOutput: 11) == Array("hello world".utf8))
        #expect(try LZFSEDecoder.decode(Self.end, maxOutput: 0) == [])
        // Bytes after the end-of-stream block are not read.
        #expect(try LZFSEDecoder.decode(Self.stored([1, 2]) + Self.end + [0xFF, 0xFF], maxOutput: 2) == [1, 2])
    }

    @Test func everyLZVNOpcodeKind() throws {
        let (payload, output) = Self.everyOpcode
        #expect(try LZVNDecoder.decode(payload, maxOutput: output.count) == output)
        // Inside an LZFSE stream, after a stored block its matches could reach into (they do not here).
        let stream = Self.stored(Array("prefix".utf8)) + Self.lzvnBlock(payload, rawCount: output.count) + Self.end
        #expect(try LZFSEDecoder.decode(stream, maxOutput: 1000) == Array("prefix".utf8) + output)
        // A large output grows the standalone decoder's buffer several times.
        var long: [UInt8] = [0xE1, UInt8(ascii: "q")]
        for _ in 0..<2000 { long += [0b00_111_111, 1, 0] }  // match 10 from 1 back
        long += Self.endOfStream
        #expect(try LZVNDecoder.decode(long, maxOutput: 20001) == Array(repeating: UInt8(ascii: "q"), count: 20001))
    }

    @Test func matchesReachIntoEarlierBlocks() throws {
        // An LZVN block whose only opcode copies 6 bytes from the stored block before it.
        let payload: [UInt8] = [0b00_011_000, 6] + Self.endOfStream
        let stream = Self.stored(Array("abcdef".utf8)) + Self.lzvnBlock(payload, rawCount: 6) + Self.end
        #expect(try LZFSEDecoder.decode(stream, maxOutput: 12) == Array("abcdefabcdef".utf8))
    }

    func refusal(_ stream: [UInt8], maxOutput: Int = 1 << 20) throws -> String {
        let error = try requireDiagnostic(LZFSEProblem.self) { try LZFSEDecoder.decode(stream, maxOutput: maxOutput) }
        #expect(!error.description.contains("\n"))
        return error.description
    }

    @Test func refusalsNameTheBlockAndWhatIsWrong() throws {
        #expect(try refusal([]) == "block 0 at byte 0: empty input: no LZFSE block")
        #expect(try refusal(Self.stored([1, 2, 3])) == "block 1 at byte 11: stream ends without its end-of-stream block (bvx$)")
        #expect(try refusal(Array("bvx-".utf8) + Self.le32(100) + [1, 2] + Self.end).contains("bvx- block of 100 bytes truncated"))
        #expect(
            try refusal(Self.stored([1]) + Array("bvxQ".utf8) + Self.end) == "block 1 at byte 9: unknown block magic 'bvxQ' (0x51787662)")
        #expect(try refusal(Self.stored([1, 2, 3]) + Self.end, maxOutput: 2).contains("more than maxOutput (2 bytes)"))
        // LZVN: a match before the start of the output, an undefined opcode, no end-of-stream, a wrong declared size.
        let far = Self.lzvnBlock([0xE1, 65, 0b00_000_000, 9] + Self.endOfStream, rawCount: 4)
        #expect(try refusal(far + Self.end) == "block 0 at byte 14: LZVN match 9 bytes back with 1 written")
        #expect(try refusal(Self.lzvnBlock([0x70] + Self.endOfStream, rawCount: 1) + Self.end).contains("LZVN opcode 0x70 is undefined"))
        #expect(try refusal(Self.lzvnBlock([0xE1, 65], rawCount: 1) + Self.end).contains("without its end-of-stream opcode"))
        #expect(try refusal(Self.lzvnBlock([0xE2, 65, 66] + Self.endOfStream, rawCount: 1) + Self.end).contains("more than the 1 bytes"))
        #expect(try refusal(Self.lzvnBlock([0xE1, 65] + Self.endOfStream, rawCount: 2) + Self.end).contains("writes 1 of the 2 bytes"))
        // A compressed block whose header claims more than the format allows.
        var header = Array("bvx2".utf8) + Self.le32(10) + Array(repeating: UInt8(0), count: 24)
        header[24] = 32  // header size 32: no frequency tables
        header[8 + 5] = 0xFF  // match count (bits 40-59 of the first packed word) 0xFFFF
        header[8 + 6] = 0xFF
        #expect(try refusal(Self.stored([1]) + header + Self.end) == "block 1 at byte 9: 65535 matches, more than 10000")
    }

    @Test func lzvnRefusalsNameTheOffset() throws {
        let error = try requireDiagnostic(LZFSEProblem.self) { try LZVNDecoder.decode([0xE1, 65, 0xD5, 0], maxOutput: 100) }
        #expect(error.description == "byte 2: LZVN opcode 0xd5 is undefined")
        let limit = try requireDiagnostic(LZFSEProblem.self) { try LZVNDecoder.decode(Self.everyOpcode.payload, maxOutput: 10) }
        #expect(limit.isLimitExceeded)
        expectDiagnostic(LZFSEProblem.self) { try LZVNDecoder.decode([UInt8](), maxOutput: 10) }
        expectDiagnostic(LZFSEProblem.self) { try LZVNDecoder.decode([0x06, 0, 0], maxOutput: 10) }
    }
}
