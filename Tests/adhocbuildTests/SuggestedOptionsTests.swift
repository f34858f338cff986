import Foundation
import TestSupport
import Testing

/// Every option the tool's messages name (`pass --allow-decrease`, `give -o OUT`, `or --replace`) is
/// one a command really takes: advice that names a missing option is a dead end for the user.
@Suite struct SuggestedOptionsTests {
    /// The options every command declares, read from the tool's own help, command by command.
    func declaredOptions() throws -> Set<String> {
        var options: Set<String> = []
        var pending: [[String]] = [[]]
        while let path = pending.popLast() {
            let help = try AdhocBuildBinary.run(["help"] + path)
            #expect(help.status == 0, "help \(path): \(help.stderrText)")
            var section = ""
            for line in help.stdoutText.split(separator: "\n", omittingEmptySubsequences: false) {
                if !line.hasPrefix(" ") && line.hasSuffix(":") { section = String(line) }
                guard line.hasPrefix("  ") else { continue }
                if section == "Commands:", let name = line.split(separator: " ").first { pending.append(path + [String(name)]) }
                if section == "Options:" { options.formUnion(Self.optionNames(in: String(line))) }
            }
        }
        return options
    }

    /// `--name` tokens in `text` (not inside a longer word or a `---` rule).
    static func optionNames(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "(?<![\\w-])--[a-z][a-z0-9-]*")
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).map { String(text[Range($0.range, in: text)!]) })
    }

    /// Every `--name` written in a string literal of the sources, with where it is.
    func mentionedOptions() throws -> [String: String] {
        var mentioned: [String: String] = [:]
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        let literal = try NSRegularExpression(pattern: "\"((?:[^\"\\\\]|\\\\.)*)\"")
        for case let file as String in FileManager.default.enumerator(atPath: sources.path)! where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                for match in literal.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    for option in Self.optionNames(in: String(line[Range(match.range(at: 1), in: line)!])) {
                        mentioned[option] = "Sources/\(file):\(number + 1)"
                    }
                }
            }
        }
        return mentioned
    }

    @Test func everyOptionAMessageNamesIsDeclaredByACommand() throws {
        let declared = try declaredOptions()
        #expect(declared.contains("--allow-decrease") && declared.contains("--replace") && declared.count > 30, "\(declared.sorted())")
        let mentioned = try mentionedOptions()
        #expect(mentioned.count > 20, "the scan found too few option names: \(mentioned.keys.sorted())")
        for (option, place) in mentioned.sorted(by: { $0.key < $1.key }) {
            #expect(declared.contains(option), "\(place) names \(option), which no command takes")
        }
    }
}
