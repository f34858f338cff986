import Foundation
import PlistKit
import TestSupport

/// The toolchain's own `plutil`: swift-corelibs-foundation's, which reads property lists with
/// Core Foundation's parsers (XML, binary, OpenStep) and falls back to JSON when converting.
/// It stands next to `swift`, so every toolchain that builds this package has it.
enum Plutil {
    /// `plutil` beside the `swift` on PATH (symbolic links followed), or a setup failure saying so.
    static func locate() throws -> String {
        guard let swift = ProcessResult.which("swift") else {
            throw SetupFailure("no `swift` on PATH, so the toolchain's plutil cannot be found beside it")
        }
        let real = URL(fileURLWithPath: swift).resolvingSymlinksInPath()
        let candidate = real.deletingLastPathComponent().appendingPathComponent("plutil").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw SetupFailure("plutil is missing at \(candidate); every Swift toolchain for Linux ships it beside `swift`")
        }
        return candidate
    }

    /// What Core Foundation made of one input: the value (read back from its XML conversion;
    /// nil when that XML is not well-formed, as when a string holds a control character
    /// XML 1.0 cannot carry) or the error line it printed.
    enum Verdict {
        case accepted(PlistValue?)
        case refused(String)
        /// plutil died of a signal, so Core Foundation's answer is unknown.
        case crashed(String)
    }

    /// Converts every file in `inputs` to XML in one run (`-convert xml1 -e out`, which keeps
    /// going after a failure), then reads each conversion back with our XML reader. An input
    /// the batch run neither converted nor named in an error (plutil crashed first) is run alone.
    static func verdicts(for inputs: [String]) throws -> [Verdict] {
        let plutil = try locate()
        let batch = try ProcessResult.run(plutil, ["-convert", "xml1", "-e", "out"] + inputs)
        var verdicts: [Verdict] = []
        for input in inputs {
            let output = URL(fileURLWithPath: input).deletingPathExtension().appendingPathExtension("out").path
            if let xml = FileManager.default.contents(atPath: output) {
                verdicts.append(.accepted(try readBack(xml, of: input)))
            } else if let line = batch.stderrText.split(separator: "\n").first(where: { $0.hasPrefix(input + ":") }) {
                verdicts.append(.refused(String(line)))
            } else {
                let alone = try ProcessResult.run(plutil, ["-convert", "xml1", "-o", "-", input])
                if alone.status == 0 {
                    verdicts.append(.accepted(try readBack(alone.stdout, of: input)))
                } else if alone.stderrText.contains("Program crashed") || alone.status > 1 {
                    verdicts.append(
                        .crashed(
                            alone.stderrText.split(separator: "\n").first { $0.contains("crashed") }.map(String.init)
                                ?? "exit \(alone.status)"))
                } else {
                    verdicts.append(.refused(alone.stderrText.split(separator: "\n").last.map(String.init) ?? "exit \(alone.status)"))
                }
            }
        }
        return verdicts
    }

    static func readBack(_ xml: Data, of input: String) throws -> PlistValue? {
        try? XMLPlistReader().read(xml)
    }
}
