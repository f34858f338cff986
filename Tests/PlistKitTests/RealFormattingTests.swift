import Testing

@testable import PlistKit

@Suite struct RealFormattingTests {
    /// Reals spread over the whole bit space, from a fixed seed, plus the edge cases.
    static let samples: [Double] = {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var values: [Double] = [
            0, -0.0, 1, -1, 3, 1e16, 1e22, 0.1, 1.0 / 3, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude,
            .leastNormalMagnitude, .infinity, -.infinity, .nan, 123456789.0, 9_007_199_254_740_992
        ]
        for _ in 0..<20_000 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            values.append(Double(bitPattern: state))
            values.append(Double(Int64(bitPattern: state) >> 20))
        }
        return values
    }()

    /// The XML writer formats reals in place; its bytes must be exactly `XMLPlistWriter.format`'s text.
    @Test func inPlaceFormattingGivesTheSameTextAsFormat() {
        for sample in Self.samples {
            var out = ByteOutput(capacity: 8)
            XMLPlistWriter.appendFormatted(sample, to: &out)
            #expect(String(decoding: out.bytes, as: UTF8.self) == XMLPlistWriter.format(sample), "\(sample.bitPattern)")
        }
    }
}
