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

    /// The options `adhocbuild help COMMAND…` lists for that one command.
    func options(of command: [String]) throws -> Set<String> {
        let help = try AdhocBuildBinary.run(["help"] + command)
        #expect(help.status == 0, "help \(command): \(help.stderrText)")
        return Self.optionNames(in: help.stdoutText)
    }

    /// The advice each command prints for an app whose icon lives only in Assets.car names only
    /// options that command takes (`icon extract` and `inspect` once suggested `--icon`, which only
    /// `page` and `release` have).
    @Test func theMissingIconAdviceOfEachCommandNamesOnlyItsOwnOptions() throws {
        try withTemporaryFolder { folder in
            let ipa = folder.path("Catalog.ipa")
            let python = try #require(ProcessResult.which("python3"))
            let script = """
                import sys, zipfile, plistlib
                z = zipfile.ZipFile(sys.argv[1], 'w')
                z.writestr('Payload/A.app/Info.plist', plistlib.dumps({'CFBundleIdentifier': 'com.example.a', 'CFBundleExecutable': 'A',
                    'CFBundleVersion': '1', 'CFBundleShortVersionString': '1.0', 'CFBundleIcons': {'CFBundlePrimaryIcon': {'CFBundleIconName': 'AppIcon'}}}))
                z.writestr('Payload/A.app/A', b'binary')
                z.writestr('Payload/A.app/Assets.car', b'BOMStore')
                z.close()
                """
            try #require(try ProcessResult.run(python, ["-c", script, ipa]).status == 0)
            let runs: [[String]] = [
                ["icon", "extract", ipa, "-o", folder.path("icons")], ["inspect", ipa],
                ["page", ipa, "--base-url", "https://b.example/", "-o", folder.path("site")]
            ]
            for arguments in runs {
                let command = Array(arguments.prefix { !$0.hasPrefix("/") })
                let result = try AdhocBuildBinary.run(arguments)
                let output = result.stdoutText + result.stderrText
                #expect(output.contains("Assets.car"), "\(command): \(output)")
                let suggested = Self.optionNames(in: output)
                #expect(suggested.isSubset(of: try options(of: command)), "\(command) suggests \(suggested.sorted()): \(output)")
            }
            #expect(Self.optionNames(in: try AdhocBuildBinary.run(runs[2]).stderrText).contains("--icon"))
        }
    }
}
