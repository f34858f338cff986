import SystemSupport
import TestSupport
import Testing

@testable import Compression
@testable import TestSupport

/// Apple's reference encoder (PyPI `lzfse`) writes the streams; the decoder must give back the
/// bytes exactly: stored, LZVN and compressed blocks, tiny to several MB, `bvx1` rewrites included.
@Suite(
    .enabled(
        if: LZFSETestStreams.oracleIsInstalled || Fixtures.isRequired,
        "the PyPI lzfse package is not installed for python3 (make deps installs it); ADHOCBUILD_REQUIRE_FIXTURES=1 makes this a failure"))
struct OracleStreamTests {
    @Test func decodesAppleStreamsByteForByte() throws {
        let cases = try LZFSETestStreams.oracleCases()
        #expect(cases.count >= 20)
        var kinds = Set<String>()
        for (name, stream, raw) in cases {
            kinds.insert(String(decoding: stream.prefix(4), as: UTF8.self))
            let decoded = try LZFSEDecoder.decode(stream, maxOutput: raw.count)
            #expect(decoded.count == raw.count, "\(name)")
            #expect(
                decoded == raw,
                "\(name): first difference at \(zip(decoded, raw).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
        }
        #expect(kinds == ["bvx-", "bvxn", "bvx2", "bvx1"])
        // Several blocks in one stream.
        let large = try #require(cases.first { $0.name == "words-large" })
        #expect(large.stream.count > 500_000)
    }

    @Test func lzvnPayloadsDecodeOnTheirOwn() throws {
        var checked = 0
        for (name, stream, raw) in try LZFSETestStreams.oracleCases() {
            for (payload, rawCount) in LZFSETestStreams.lzvnPayloads(stream) {
                #expect(rawCount == raw.count)
                #expect(try LZVNDecoder.decode(payload, maxOutput: raw.count) == raw, "\(name)")
                expectDiagnostic(LZFSEProblem.self) { try LZVNDecoder.decode(payload, maxOutput: raw.count - 1) }
                checked += 1
            }
        }
        #expect(checked >= 5)
    }

    @Test func maxOutputIsRefusedBeforeDecoding() throws {
        for (name, stream, raw) in try LZFSETestStreams.oracleCases() where !raw.isEmpty {
            let error = try requireDiagnostic(LZFSEProblem.self) { try LZFSEDecoder.decode(stream, maxOutput: raw.count - 1) }
            #expect(error.isLimitExceeded, "\(name)")
            #expect(error.description.contains("maxOutput"), "\(name): \(error)")
        }
    }
}
