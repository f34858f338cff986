import Testing

@testable import PlistKit

@Suite struct ByteOutputTests {
    /// Appends of every kind, past the initial capacity many times over, keep every byte in order.
    @Test func growingKeepsEveryByteInOrder() {
        var out = ByteOutput(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<2_000 {
            let chunk = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
            out.append(chunk)
            expected += chunk
            out.append(UInt8(truncatingIfNeeded: round))
            expected.append(UInt8(truncatingIfNeeded: round))
            out.append(0x09, times: round % 5)
            expected += Array(repeating: 0x09, count: round % 5)
            out.append("<key>")
            expected += Array("<key>".utf8)
            out.write(maximum: 21) { PlistInteger(Int64(round) - 1000).writeDecimal(to: $0) }
            expected += Array(String(round - 1000).utf8)
        }
        #expect(out.count == expected.count)
        #expect(out.bytes == expected)
        out.truncate(to: 10)
        #expect(out.bytes == Array(expected[..<10]))
    }
}
