import AdhocBuildKit
import CodeSign
import Foundation
import FuzzDriver

// Cross-format: a certificate's name (the signer of the build) becomes a value every CI channel
// carries: GITHUB_OUTPUT, the step summary, Jenkins' properties, GitLab's dotenv and TeamCity's
// service messages. The input is a DER certificate (its common name and subject are used) or, when
// it is not one, the name itself as UTF-8. Whatever the name holds, each channel must read back
// exactly the values written, one each, and add no line or value of its own (issue 31).
let scratch = "/dev/shm/adhocbuild-fuzz-ci-values-\(getpid())"
try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

/// GitHub's runner reading `GITHUB_OUTPUT`: `name=value`, or `name<<DELIMITER`, lines, `DELIMITER`.
func githubOutputs(_ text: String) -> [(String, String)] {
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    var outputs: [(String, String)] = []
    var index = 0
    while index < lines.count {
        let line = lines[index]
        if let marker = line.range(of: "<<"), !line[..<marker.lowerBound].contains("=") {
            let delimiter = String(line[marker.upperBound...])
            var value: [String] = []
            index += 1
            while index < lines.count && lines[index] != delimiter {
                value.append(lines[index])
                index += 1
            }
            precondition(index < lines.count, "GITHUB_OUTPUT: no closing delimiter")
            outputs.append((String(line[..<marker.lowerBound]), value.joined(separator: "\n")))
        } else {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            precondition(parts.count == 2, "GITHUB_OUTPUT: a line that is no output: \(line)")
            outputs.append((String(parts[0]), String(parts[1])))
        }
        index += 1
    }
    return outputs
}

/// `java.util.Properties.load` on one logical line per key (no continuation lines are written): it
/// reads UTF-16 units, so the two `\uXXXX` of a character beyond U+FFFF make one character.
func javaProperties(_ text: String) -> [(String, String)] {
    text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map { line in
        var key: [UInt16] = [], value: [UInt16] = [], inValue = false
        var scalars = line.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            var units = Array(String(scalar).utf16)
            if scalar == "\\" {
                guard let next = scalars.next() else { preconditionFailure("properties: a line ends in a backslash") }
                switch next {
                case "t": units = [0x09]
                case "n": units = [0x0A]
                case "r": units = [0x0D]
                case "f": units = [0x0C]
                case "u":
                    var hex = ""
                    for _ in 0..<4 { hex.unicodeScalars.append(scalars.next()!) }
                    units = [UInt16(hex, radix: 16)!]
                default: units = Array(String(next).utf16)
                }
            } else if !inValue && (scalar == "=" || scalar == ":") {
                inValue = true
                continue
            }
            if inValue { value += units } else { key += units }
        }
        return (String(decoding: key, as: UTF16.self), String(decoding: value, as: UTF16.self))
    }
}

/// TeamCity's reading of one service message's attribute values, `|x` escapes undone (`|0xNNNN` is
/// one UTF-16 unit, so two make a character beyond U+FFFF).
func teamCityValues(_ message: String) -> [String] {
    var values: [String] = []
    var scalars = Array(message.unicodeScalars)[...]
    while let open = scalars.firstIndex(of: "'") {
        scalars = scalars[(open + 1)...]
        var units: [UInt16] = []
        while let scalar = scalars.popFirst(), scalar != "'" {
            guard scalar == "|" else {
                units += String(scalar).utf16
                continue
            }
            let next = scalars.popFirst()!
            switch next {
            case "n": units.append(0x0A)
            case "r": units.append(0x0D)
            case "0":
                precondition(scalars.popFirst() == "x", "TeamCity: |0 without x")
                units.append(UInt16(String(String.UnicodeScalarView(scalars.prefix(4))), radix: 16)!)
                scalars = scalars.dropFirst(4)
            default: units += String(next).utf16
            }
        }
        values.append(String(decoding: units, as: UTF16.self))
    }
    return values
}

/// What a release reports on every channel for a build signed by `signer`.
struct Reported {
    var expected: [(String, String)]
    var githubOutput: String
    var summary: String
    var properties: String
    var dotenv: String
    var printed: [String]
}

final class PrintedLines: @unchecked Sendable { var lines: [String] = [] }

func publish(signer: String) -> Reported {
    var result = ReleasePipeline.Result(
        environment: "Staging", version: "1.0", build: "7", releaseFolder: "dist/Staging/1.0-7", releasePath: "Staging/1.0-7",
        ipa: "dist/Staging/1.0-7/A.ipa", pageURL: "https://x.example/", manifestURL: "https://x.example/manifest.plist",
        installURL: "itms-services://?action=download-manifest", warnings: [], signature: "broken",
        signatureSummary: "the signature of A.app is broken (signed by \"\(signer)\")")
    result.signer = signer
    let paths = (output: scratch + "/output", summary: scratch + "/summary", properties: scratch + "/p", dotenv: scratch + "/env")
    for path in [paths.output, paths.summary, paths.properties, paths.dotenv] { unlink(path) }
    let printed = PrintedLines()
    let environment = ["GITHUB_OUTPUT": paths.output, "GITHUB_STEP_SUMMARY": paths.summary]
    for (server, file) in [(CIServer.github, nil), (.jenkins, paths.properties), (.gitlab, paths.dotenv), (.teamcity, nil)] {
        let reporter = CIReporter(server: server, environment: environment, reportFile: file) { printed.lines.append($0) }
        guard (try? reporter.succeeded(result, out: "dist")) != nil else { preconditionFailure("\(server): not written") }
    }
    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    return Reported(
        expected: CIReporter.values(result), githubOutput: text(paths.output), summary: text(paths.summary),
        properties: text(paths.properties), dotenv: text(paths.dotenv), printed: printed.lines)
}

/// The step summary's line ends for a plain name: a hostile one must not add any.
let summaryLineEnds = publish(signer: "Apple Development: A").summary.filter { $0 == "\n" }.count

func check(signer: String) {
    let reported = publish(signer: signer)
    let expected = reported.expected
    // GitHub: the twelve outputs, each once, each the value written; the summary has no line of its own.
    let outputs = githubOutputs(reported.githubOutput)
    precondition(
        outputs.map(\.0)
            == expected.map { $0.0.lowercased().replacingOccurrences(of: "_", with: "-") }
            .map { $0 == "ipa" ? "ipa-path" : $0 }, "GITHUB_OUTPUT names: \(outputs)")
    precondition(outputs.map(\.1) == expected.map(\.1), "GITHUB_OUTPUT values: \(outputs)")
    precondition(reported.summary.filter { $0 == "\n" }.count == summaryLineEnds, "step summary: lines of its own: \(reported.summary)")
    // Jenkins: the same keys and values.
    let properties = javaProperties(reported.properties)
    precondition(properties.map(\.0) == expected.map { "ADHOCBUILD_" + $0.0 }, "properties keys: \(properties)")
    precondition(properties.map(\.1) == expected.map(\.1), "properties values: \(properties)")
    // GitLab: every line one of ours, its value as written (what dotenv cannot hold is left out).
    for line in reported.dotenv.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let value = expected.first { "ADHOCBUILD_" + $0.0 == parts[0] }?.1
        precondition(parts.count == 2 && value == String(parts[1]).trimmingCharacters(in: .whitespaces), "dotenv: \(line)")
    }
    // TeamCity and the workflow command: one line each, one message each, values read back as written.
    for line in reported.printed {
        precondition(!line.unicodeScalars.contains { $0 == "\n" || $0 == "\r" }, "printed more than one line: \(line)")
        if line.hasPrefix("##teamcity[") {
            precondition(line.components(separatedBy: "##teamcity[").count == 2, "two service messages in one: \(line)")
        } else {
            precondition(line.hasPrefix("::warning title=Signature::"), "a line of its own: \(line)")
        }
        if line.hasPrefix("##teamcity[setParameter name='adhocbuild.signer'") {
            precondition(teamCityValues(line) == ["adhocbuild.signer", signer], "TeamCity: \(teamCityValues(line))")
        }
    }
}

runFuzzer { data in
    var names: [String] = []
    if let certificate = try? CertificateInfo(der: [UInt8](data)) {
        names = [certificate.displayName, certificate.subject]
    } else if data.count <= 4096, let text = String(data: data, encoding: .utf8) {
        names = [text]
    }
    for name in names { check(signer: name) }
}
