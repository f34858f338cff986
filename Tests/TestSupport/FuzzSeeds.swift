import Foundation

/// Hands the malformed-input corpora to the fuzzers: with `ADHOCBUILD_FUZZ_SEEDS=DIR` set, each
/// malformed case a test reads is also written to `DIR/<harness>/<name>` (`make test` and
/// `scripts/fuzz.sh` set it, so the fuzzers start from every hostile input the tests know).
public enum FuzzSeeds {
    public static func export(_ data: Data, harness: String, name: String) {
        guard let root = ProcessInfo.processInfo.environment["ADHOCBUILD_FUZZ_SEEDS"], !root.isEmpty else { return }
        let folder = URL(fileURLWithPath: root).appendingPathComponent(harness)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let safe = String(name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
        try? data.write(to: folder.appendingPathComponent("malformed-" + safe))
    }
}
