import Foundation
import TestSupport

/// Streams for the tests: Apple's encoder's (through the PyPI `lzfse` package, when installed) and
/// the fuzz seeds the repository holds.
enum LZFSETestStreams {
    static let oracleScript = Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/lzfse_streams.py").path
    static let seedFolder = Fixtures.packageRoot.appendingPathComponent("Fuzz/Seeds/lzfse")

    /// Whether python3 has the `lzfse` package (Apple's reference implementation).
    static let oracleIsInstalled: Bool = {
        guard let python = ProcessResult.which("python3") else { return false }
        return (try? ProcessResult.run(python, ["-c", "import lzfse"]).status) == 0
    }()

    /// Each case's name, Apple's stream and the bytes it encodes, written once per test run.
    static func oracleCases() throws -> [(name: String, stream: [UInt8], raw: [UInt8])] { try written.get() }

    private static let written = Result { try writeOracleCases() }

    private static func writeOracleCases() throws -> [(name: String, stream: [UInt8], raw: [UInt8])] {
        let python = try ProcessResult.which("python3") ?? { throw SetupFailure("python3 is needed for the LZFSE oracle") }()
        return try withTemporaryFolder { folder in
            let run = try ProcessResult.run(python, [oracleScript, folder.url.path])
            guard run.status == 0 else { throw SetupFailure("lzfse_streams.py failed: \(run.stderrText)") }
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".lzfse") }
            return try names.sorted().map { file in
                let name = String(file.dropLast(".lzfse".count))
                let stream = try Data(contentsOf: folder.url.appendingPathComponent(file))
                let raw = try Data(contentsOf: folder.url.appendingPathComponent(name + ".raw"))
                return (name, [UInt8](stream), [UInt8](raw))
            }
        }
    }

    /// The committed seed streams (Fuzz/Seeds/lzfse), by file name.
    static func seeds() throws -> [(name: String, stream: [UInt8])] {
        let names = try FileManager.default.contentsOfDirectory(atPath: seedFolder.path).sorted()
        return try names.map { ($0, [UInt8](try Data(contentsOf: seedFolder.appendingPathComponent($0)))) }
    }

    /// The payloads of the `bvxn` blocks of a stream (each a whole LZVN stream).
    static func lzvnPayloads(_ stream: [UInt8]) -> [(payload: [UInt8], rawCount: Int)] {
        func word(_ at: Int) -> Int { Int(stream[at]) | Int(stream[at + 1]) << 8 | Int(stream[at + 2]) << 16 | Int(stream[at + 3]) << 24 }
        guard stream.count >= 12, stream.starts(with: Array("bvxn".utf8)) else { return [] }
        let payloadCount = word(8)
        return [(Array(stream[12..<12 + payloadCount]), word(4))]
    }
}
