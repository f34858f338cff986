import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import Compression

/// Truncated and corrupted streams (from the committed seeds, which every kind of block is in) are
/// clear errors or bounded output, never a crash, a hang or an error of another type.
@Suite struct LZFSEMalformedInputTests {
    /// Decodes `stream`, requiring an ``Diagnostic`` or at most `maxOutput` bytes; returns whether it decoded.
    @discardableResult
    func survive(_ stream: [UInt8], maxOutput: Int, _ label: @autoclosure () -> String) -> Bool {
        do {
            let output = try LZFSEDecoder.decode(stream, maxOutput: maxOutput)
            #expect(output.count <= maxOutput, "\(label())")
            return true
        } catch let error as Diagnostic where error.is(LZFSEProblem.self) {
            #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(label())")
            #expect(error.places.contains { if case .block(_, byte: .some) = $0 { true } else { false } }, "\(label()): \(error)")
            return false
        } catch {
            Issue.record("\(label()): an error of another type: \(error)")
            return false
        }
    }

    @Test func seedsDecode() throws {
        let seeds = try LZFSETestStreams.seeds()
        #expect(seeds.count >= 8)
        for (name, stream) in seeds {
            #expect(throws: Never.self, "\(name)") { try LZFSEDecoder.decode(stream, maxOutput: 1 << 20) }
        }
    }

    @Test func everyTruncationIsAnError() throws {
        for (name, stream) in try LZFSETestStreams.seeds() {
            let step = stream.count < 4096 ? 1 : 13
            for length in stride(from: 0, to: stream.count, by: step) {
                let error = expectDiagnostic(LZFSEProblem.self, "\(name) cut at \(length)") {
                    try LZFSEDecoder.decode(Array(stream[..<length]), maxOutput: 1 << 20)
                }
                if length == stream.count / 2, let error {
                    FuzzSeeds.export(Data(stream[..<length]), harness: "lzfse", name: "\(name)-cut-half")
                    #expect(error.places.contains { if case .block = $0 { true } else { false } }, "\(error)")
                }
            }
        }
    }

    @Test func corruptedBytesAreErrorsOrBoundedOutput() throws {
        var random = SeededGenerator(seed: 19)
        var decoded = 0, refused = 0
        for (name, original) in try LZFSETestStreams.seeds() {
            let size = try LZFSEDecoder.decode(original, maxOutput: 1 << 20).count
            for round in 0..<1000 {
                var stream = original
                for _ in 0..<(1 + random.below(3)) {
                    let at = random.below(stream.count)
                    // Mostly in the headers and the first bytes of payloads, where a change matters most.
                    let position = random.below(4) == 0 ? at : min(at, random.below(min(stream.count, 900)))
                    stream[position] = random.below(2) == 0 ? stream[position] ^ UInt8(1 << random.below(8)) : UInt8(random.below(256))
                }
                if survive(stream, maxOutput: size + 100, "\(name) round \(round)") { decoded += 1 } else { refused += 1 }
                if round < 3 { FuzzSeeds.export(Data(stream), harness: "lzfse", name: "\(name)-corrupt-\(round)") }
            }
        }
        // Most changes are caught; some (in literal bits, say) decode to other bytes.
        #expect(refused > decoded / 4)
    }

    @Test func lzvnPayloadsCorruptedAreErrorsOrBoundedOutput() throws {
        var random = SeededGenerator(seed: 7)
        let (payload, output) = HandBuiltStreamTests.everyOpcode
        for round in 0..<5000 {
            var stream = payload
            for _ in 0..<(1 + random.below(2)) { stream[random.below(stream.count)] = UInt8(random.below(256)) }
            if random.below(3) == 0 { stream.removeLast(random.below(stream.count)) }
            do {
                #expect(try LZVNDecoder.decode(stream, maxOutput: output.count * 4).count <= output.count * 4)
            } catch let error as Diagnostic where error.is(LZFSEProblem.self) {
                #expect(error.places.contains { if case .byte = $0 { true } else { false } }, "round \(round)")
            } catch {
                Issue.record("round \(round): an error of another type: \(error)")
            }
        }
    }

    @Test func randomBytesAfterEachMagicAreErrors() throws {
        var random = SeededGenerator(seed: 3)
        for magic in ["bvx-", "bvxn", "bvx1", "bvx2", "bvx$", "bvxx"] {
            for round in 0..<400 {
                let tail = (0..<random.below(2000)).map { _ in UInt8(random.below(256)) }
                var stream = Array(magic.utf8) + tail
                // Keep header sizes and counts plausible in half the cases, so the checks past them run.
                if magic == "bvx2", stream.count > 40, round % 2 == 0 {
                    stream[24] = UInt8(32 + random.below(200))
                    stream[25] = 0
                    stream[26] = 0
                    stream[27] = 0
                }
                survive(stream, maxOutput: 1 << 16, "\(magic) round \(round)")
            }
        }
    }
}
