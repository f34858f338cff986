import Foundation
import TestSupport
import Testing

/// The README's doc-test: every `adhocbuild …` command in README.md's code blocks runs here, in a
/// temporary copy of the bundled example (environments, the example app, the example plists and the
/// README's own `adhocbuild.plist`), and must exit as the README implies and print what the README
/// shows after a `$ ` line. A command that cannot run is listed in ``notRun`` with the reason; a
/// command the test cannot read fails it, so a new README command either runs or is listed.
@Suite(.serialized) struct READMECommandTests {
    // MARK: What the README holds

    /// One fenced code block of README.md.
    struct Block: Sendable {
        var language: String
        /// Each line with its 1-based line number in README.md.
        var lines: [(number: Int, text: String)]
    }

    /// One `adhocbuild` command found in a code block.
    struct Command: Sendable, CustomStringConvertible {
        /// The README line it starts on.
        var line: Int
        /// The fenced block's language (`sh`, `groovy`, `yaml`, or empty).
        var language: String
        /// The command as written (continuation lines joined), from `adhocbuild` or the variables before it.
        var text: String
        /// The lines shown after a `$ ` line, when the README shows output.
        var expectedOutput: [String]?
        /// The index of its block: commands of one block run one after another in one folder.
        var block: Int

        var description: String { "README.md:\(line): \(text)" }
    }

    static let readmeURL = Fixtures.packageRoot.appendingPathComponent("README.md")

    static func readme() throws -> String { try String(contentsOf: readmeURL, encoding: .utf8) }

    /// The fenced code blocks of `markdown`.
    static func blocks(_ markdown: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block? = nil
        for (index, line) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let block = current {
                    blocks.append(block)
                    current = nil
                } else {
                    current = Block(language: String(trimmed.dropFirst(3)), lines: [])
                }
            } else {
                current?.lines.append((index + 1, line))
            }
        }
        return blocks
    }

    /// Every `adhocbuild` command in `markdown`'s code blocks: a line that starts with it (after a `$ `
    /// prompt or `NAME=value` assignments), `$(adhocbuild …)`, a Jenkinsfile's `sh 'adhocbuild …'` and a
    /// GitHub Actions `run: adhocbuild …`.
    static func commands(_ markdown: String) -> [Command] {
        var commands: [Command] = []
        for (blockIndex, block) in blocks(markdown).enumerated() {
            var index = 0
            while index < block.lines.count {
                let (number, raw) = block.lines[index]
                index += 1
                var line = raw.trimmingCharacters(in: .whitespaces)
                // Shell continuation lines, and YAML's folding of a plain scalar onto more-indented lines.
                while line.hasSuffix("\\"), index < block.lines.count {
                    line =
                        String(line.dropLast()).trimmingCharacters(in: .whitespaces) + " "
                        + block.lines[index].text.trimmingCharacters(in: .whitespaces)
                    index += 1
                }
                if block.language == "yaml", line.hasPrefix("run:") || line.hasPrefix("- run:") {
                    let indent = raw.prefix { $0 == " " }.count
                    while index < block.lines.count, block.lines[index].text.prefix(while: { $0 == " " }).count > indent + 2 {
                        line += " " + block.lines[index].text.trimmingCharacters(in: .whitespaces)
                        index += 1
                    }
                }
                if line.hasPrefix("$ ") {
                    var output: [String] = []
                    while index < block.lines.count, !block.lines[index].text.hasPrefix("$ ") {
                        output.append(block.lines[index].text)
                        index += 1
                    }
                    commands.append(
                        Command(
                            line: number, language: block.language, text: String(line.dropFirst(2)), expectedOutput: output,
                            block: blockIndex))
                } else if let text = command(in: line) {
                    commands.append(Command(line: number, language: block.language, text: text, expectedOutput: nil, block: blockIndex))
                }
            }
        }
        return commands
    }

    /// The `adhocbuild` command on one logical line, if there is one.
    static func command(in line: String) -> String? {
        var rest = Substring(line)
        for opening in ["- run: ", "run: ", "sh '", "sh \""] where rest.hasPrefix(opening) {
            rest = rest.dropFirst(opening.count)
            if opening.hasPrefix("sh "), let close = rest.lastIndex(of: opening.last!) { rest = rest[..<close] }
        }
        if let substitution = rest.range(of: "$(adhocbuild "), let close = rest.lastIndex(of: ")") {
            return String(rest[rest.index(substitution.lowerBound, offsetBy: 2)..<close])
        }
        // `NAME=value` assignments may come before the command.
        var words = rest.split(separator: " ", omittingEmptySubsequences: true)
        while let first = words.first, first.contains("="), first.first?.isUppercase == true { words.removeFirst() }
        guard words.first == "adhocbuild" else { return nil }
        return String(rest)
    }

    // MARK: Commands that do not run here

    /// Commands the test does not run, each with the reason: the list the README's readers can trust
    /// to be complete (each entry is a prefix of the commands it covers, and must still match one).
    static let notRun: [(prefix: String, reason: String)] = [
        (
            "adhocbuild release --env NAME [--app PATH(",
            "a synopsis, not a command: NAME, PATH, URL, DIST, FILE and N stand for the user's values"
        ),
        (
            "adhocbuild release --env Staging --from-ci --publish s3://my-builds/",
            "needs an S3 store and its credentials: PublishCLITests runs release --publish against SeaweedFS"
        ),
        (
            "adhocbuild publish dist/",
            "needs an S3 store and its credentials: PublishCLITests and ReleaseUploadTests run it against SeaweedFS"
        ),
        ("adhocbuild links s3://", "needs an S3 store and its credentials: ReleaseUploadTests runs it against SeaweedFS")
    ]

    /// What a CI server gives the README's CI steps, which the test gives them in its place: the
    /// variables each server sets, and TeamCity's `%parameter%` references, which TeamCity replaces
    /// before it runs a step.
    struct CISimulation: Sendable {
        var server: String
        var environment: [String: String]
        var parameters: [String: String] = [:]
        /// The CI's artifact URL the README says the step publishes under (its flags override
        /// adhocbuild.plist's and the environment's BaseURL).
        var publishesUnder: String? = nil
    }

    static func simulation(for command: Command, folder: String) -> CISimulation? {
        if command.text.contains("%teamcity.") || command.text.contains("--ci teamcity") {
            return CISimulation(
                server: "TeamCity", environment: ["TEAMCITY_VERSION": "2025.1", "BUILD_NUMBER": "43"],
                parameters: [
                    "%teamcity.serverUrl%": "https://teamcity.example.com",
                    "%system.teamcity.buildType.id%": "ShoutOut_Release", "%teamcity.build.id%": "1234"
                ],
                publishesUnder: "https://teamcity.example.com/guestAuth/repository/download/ShoutOut_Release/1234:id/dist/")
        }
        switch command.language {
        case "groovy":
            return CISimulation(
                server: "Jenkins",
                environment: [
                    "JENKINS_URL": "https://jenkins.example.com/", "BUILD_NUMBER": "43",
                    "BUILD_URL": "https://jenkins.example.com/job/shoutout/43/"
                ],
                publishesUnder: command.text.contains("--ci jenkins") ? "https://jenkins.example.com/job/shoutout/43/artifact/" : nil)
        case "yaml":
            return CISimulation(
                server: "GitHub Actions",
                environment: [
                    "GITHUB_ACTIONS": "true", "GITHUB_RUN_NUMBER": "43", "GITHUB_OUTPUT": folder + "/github-output",
                    "GITHUB_STEP_SUMMARY": folder + "/github-summary"
                ])
        default: return nil
        }
    }

    // MARK: Running

    /// Splits a command into words as a POSIX shell does for the forms the README uses (words,
    /// single and double quotes, backslashes, `NAME=value` before the command, a `#` comment);
    /// anything else (pipes, redirections, `$VARIABLE`, …) is an error, so it cannot pass unrun.
    static func words(_ text: String) throws -> (environment: [String: String], arguments: [String]) {
        var words: [String] = []
        var word: String? = nil
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            switch character {
            case " ", "\t":
                if let finished = word { words.append(finished) }
                word = nil
            case "#" where word == nil:
                characters = []
            case "'":
                guard let close = characters.firstIndex(of: "'") else { throw SetupFailure("unterminated ' in \(text)") }
                word = (word ?? "") + String(characters[..<close])
                characters = characters[(close + 1)...]
            case "\"":
                var quoted = ""
                while let next = characters.popFirst(), next != "\"" {
                    if next == "$" || next == "`" { throw SetupFailure("the test does not expand \(next) in \(text)") }
                    if next == "\\", let escaped = characters.popFirst() { quoted.append(escaped) } else { quoted.append(next) }
                }
                word = (word ?? "") + quoted
            case "\\":
                if let escaped = characters.popFirst() { word = (word ?? "") + String(escaped) }
            case "|", "&", ";", "<", ">", "$", "`", "(", ")", "*", "?":
                throw SetupFailure("the test does not run shell syntax ('\(character)') in \(text)")
            default:
                word = (word ?? "") + String(character)
            }
        }
        if let finished = word { words.append(finished) }
        var environment: [String: String] = [:]
        while let first = words.first, first != "adhocbuild", let equals = first.firstIndex(of: "=") {
            environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
            words.removeFirst()
        }
        guard words.first == "adhocbuild" else { throw SetupFailure("not an adhocbuild command: \(text)") }
        return (environment, Array(words.dropFirst()))
    }

    /// Whether `actual` is what the README shows: line for line, where a line `...` (or `…`) on its
    /// own stands for any number of lines left out.
    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "..." || first == "…" {
            return (0...actual.count).contains { matches(Array(actual.dropFirst($0)), Array(expected.dropFirst())) }
        }
        guard let line = actual.first, line == first else { return false }
        return matches(Array(actual.dropFirst()), Array(expected.dropFirst()))
    }

    /// A provisioning profile for the example app, made once (openssl is slow on a busy machine).
    static let profile: Result<Data, SetupFailure> = {
        do {
            return try withTemporaryFolder { folder in
                let path = folder.path("example.mobileprovision")
                let script = Fixtures.packageRoot.appendingPathComponent("scripts/make-example-profile.sh").path
                let result = try ProcessResult.run("/bin/bash", [script, path])
                guard result.status == 0 else { return .failure(SetupFailure("make-example-profile.sh failed: \(result.stderrText)")) }
                return .success(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        } catch {
            return .failure(SetupFailure("cannot make the example profile: \(error)"))
        }
    }()

    /// The demo signing identity and profiles (scripts/make-demo-identity.sh, password `demo`) that the
    /// README's signing example uses under `signing/`, made once.
    static let signing: Result<[String: Data], SetupFailure> = {
        do {
            return try withTemporaryFolder { folder in
                let script = Fixtures.packageRoot.appendingPathComponent("scripts/make-demo-identity.sh").path
                let result = try ProcessResult.run("/bin/bash", [script, folder.path("signing")])
                guard result.status == 0 else { return .failure(SetupFailure("make-demo-identity.sh failed: \(result.stderrText)")) }
                var files: [String: Data] = ["password.txt": Data("demo\n".utf8)]
                for name in ["demo.p12", "demo-ca.pem", "ShoutOut.mobileprovision", "ShoutOutShare.mobileprovision"] {
                    files[name] = try Data(contentsOf: URL(fileURLWithPath: folder.path("signing/" + name)))
                }
                return .success(files)
            }
        } catch {
            return .failure(SetupFailure("cannot make the demo identity: \(error)"))
        }
    }()

    /// The README's `adhocbuild.plist` (the XML block that sets `Environments` and `App`).
    static func projectFile(_ markdown: String) throws -> String {
        guard
            let block = blocks(markdown).first(where: { block in
                block.language == "xml" && block.lines.contains { $0.text.contains("<key>App</key>") }
            })
        else { throw SetupFailure("README.md shows no adhocbuild.plist (an xml block with <key>App</key>)") }
        return block.lines.map(\.text).joined(separator: "\n") + "\n"
    }

    /// A folder laid out as the README's examples assume: `environments/`, the example plists
    /// (`Info.plist`, `Staging.plist`), the example app at `build/ShoutOut.app` and packaged as
    /// `build/ShoutOut.ipa`, and the README's
    /// `adhocbuild.plist` with every file it names (the app, notes, profile, icon).
    static func makeWorld(in folder: TemporaryFolder, markdown: String) throws {
        let root = Fixtures.packageRoot
        let files = FileManager.default
        func copy(_ source: String, to relative: String) throws {
            let target = folder.url.appendingPathComponent(relative)
            try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try files.copyItem(at: root.appendingPathComponent(source), to: target)
        }
        try copy("environments", to: "environments")
        try copy("examples/plist/Info.plist", to: "Info.plist")
        try copy("examples/plist/Staging.plist", to: "Staging.plist")
        try copy("examples/ShoutOut/ShoutOut.app", to: "build/ShoutOut.app")
        // The CI recipes start from an exported ipa: the example app packaged (unsigned).
        let packaged = try AdhocBuildBinary.run(["package", "build/ShoutOut.app", "-o", "build/ShoutOut.ipa", "-q"], in: folder.url.path)
        guard packaged.status == 0 else { throw SetupFailure("cannot package the example app: \(packaged.stderrText)") }
        for (name, data) in try signing.get() { try folder.create("signing/" + name, data) }
        _ = try folder.write("adhocbuild.plist", try projectFile(markdown))
        let json = try AdhocBuildBinary.run(["plist", "print", "adhocbuild.plist", "--format", "json"], in: folder.url.path)
        guard json.status == 0, let keys = try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any] else {
            throw SetupFailure("README's adhocbuild.plist does not read: \(json.stderrText)")
        }
        for (key, value) in keys {
            guard let path = value as? String, !files.fileExists(atPath: folder.path(path)) else { continue }
            switch key {
            case "App": try copy("examples/ShoutOut/ShoutOut.app", to: path)
            case "Environments": try copy("environments", to: path)
            case "Notes": try folder.create(path, Data("Shouts load twice as fast.\n\n- Reactions\n".utf8))
            case "Profile": try folder.create(path, try profile.get())
            case "Icon":
                try folder.create(
                    path, try Data(contentsOf: root.appendingPathComponent("examples/ShoutOut/ShoutOut.app/AppIcon60x60@3x.png")))
            default: break
            }
        }
    }

    /// The environment a command runs with: nothing from the machine running the tests (so a CI
    /// server's own variables cannot change the outcome), no colour, and the command's own variables.
    static func environment(_ extra: [String: String]) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var environment = ["NO_COLOR": "1", "PATH": inherited["PATH"] ?? "/usr/bin:/bin", "HOME": inherited["HOME"] ?? "/tmp"]
        environment.merge(extra) { $1 }
        return environment
    }

    /// One row of the README's "What bad input gets" table.
    struct ErrorRow: Sendable, CustomStringConvertible {
        var what: String
        var command: String
        var status: Int32?
        var error: String
        var description: String { "\(what): \(command)" }
    }

    /// The rows of the table between the bad-input markers, with Markdown's escapes (`\|`, `&lt;`) undone.
    static func errorRows(_ markdown: String) throws -> [ErrorRow] {
        guard let begin = markdown.range(of: BadInputCatalogTests.beginMarker),
            let end = markdown.range(of: BadInputCatalogTests.endMarker, range: begin.upperBound..<markdown.endIndex)
        else { throw SetupFailure("README.md has no bad-input table") }
        return markdown[begin.upperBound..<end.lowerBound].components(separatedBy: "\n").compactMap { line in
            guard line.hasPrefix("| "), !line.hasPrefix("| category"), !line.hasPrefix("| ---") else { return nil }
            var cells: [String] = []
            var cell = ""
            var characters = Array(line.dropFirst())[...]
            while let character = characters.popFirst() {
                if character == "\\", characters.first == "|" {
                    cell.append(characters.removeFirst())
                } else if character == "|" {
                    cells.append(cell.trimmingCharacters(in: .whitespaces))
                    cell = ""
                } else {
                    cell.append(character)
                }
            }
            func code(_ text: String) -> String { text.hasPrefix("`") && text.hasSuffix("`") ? String(text.dropFirst().dropLast()) : text }
            guard cells.count == 5 else { return ErrorRow(what: line, command: "", status: nil, error: "") }
            return ErrorRow(
                what: cells[1].replacingOccurrences(of: "&lt;", with: "<"), command: code(cells[2]), status: Int32(cells[3]),
                error: code(cells[4]))
        }
    }

    // MARK: Tests

    @Test func theTestFindsTheREADMEsCommandsInEveryFormItUses() throws {
        let commands = Self.commands(try Self.readme())
        #expect(commands.count >= 10, "\(commands)")
        for form in ["adhocbuild --help", "$(adhocbuild plist get", "sh 'adhocbuild release", "run: adhocbuild release"] {
            #expect(try Self.readme().contains(form), "README.md no longer has \(form); keep this list true")
        }
        #expect(commands.contains { $0.language == "groovy" && $0.text.hasPrefix("adhocbuild release") })
        #expect(commands.contains { $0.language == "yaml" && $0.text.hasSuffix("--base-url \"https://builds.example.com/shoutout/\"") })
        #expect(commands.contains { $0.text.hasPrefix("adhocbuild plist get build/ShoutOut.app/Info.plist") && !$0.text.hasSuffix(")") })
        #expect(commands.contains { $0.expectedOutput?.isEmpty == false })
    }

    @Test func aPlaceholderLineStandsForAnyNumberOfLines() {
        #expect(Self.matches(["a", "b", "c"], ["a", "...", "c"]))
        #expect(Self.matches(["a"], ["a", "..."]))
        #expect(Self.matches(["a", "b"], ["a", "…"]))
        #expect(!Self.matches(["a", "b"], ["a"]))
        #expect(!Self.matches(["a", "b", "d"], ["a", "...", "c"]))
    }

    @Test func everyListedCommandThatDoesNotRunIsStillInTheREADME() throws {
        let commands = Self.commands(try Self.readme())
        for entry in Self.notRun {
            #expect(commands.contains { $0.text.hasPrefix(entry.prefix) }, "notRun lists '\(entry.prefix)', which README.md no longer has")
        }
    }

    /// The heart of the doc-test: each command runs, exits as the README implies (0, unless the README
    /// shows an error after it) and prints what the README shows.
    @Test func everyCommandInTheREADMERunsAndPrintsWhatTheREADMEShows() throws {
        let markdown = try Self.readme()
        let commands = Self.commands(markdown)
        var ran = 0
        for block in Set(commands.map(\.block)).sorted() {
            try withTemporaryFolder { folder in
                try Self.makeWorld(in: folder, markdown: markdown)
                for command in commands where command.block == block {
                    if Self.notRun.contains(where: { command.text.hasPrefix($0.prefix) }) { continue }
                    var text = command.text
                    let simulation = Self.simulation(for: command, folder: folder.url.path)
                    for (parameter, value) in simulation?.parameters ?? [:] {
                        text = text.replacingOccurrences(of: parameter, with: value)
                    }
                    let (variables, arguments) = try Self.words(text)
                    let result = try ProcessResult.run(
                        AdhocBuildBinary.path, arguments,
                        environment: Self.environment((simulation?.environment ?? [:]).merging(variables) { $1 }),
                        in: folder.url.path)
                    ran += 1
                    let shown = command.expectedOutput ?? []
                    let error = shown.first?.hasPrefix("error: ") == true
                    let expectedStatus: Int32 = !error ? 0 : shown.contains { $0.hasPrefix("Usage: ") } ? 2 : 1
                    #expect(
                        result.status == expectedStatus,
                        "\(command)\(simulation.map { " (as on \($0.server))" } ?? ""): exit \(result.status), not \(expectedStatus)\n\(result.stderrText)"
                    )
                    if let prefix = simulation?.publishesUnder, command.text.contains(" release ") {
                        #expect(result.stdoutText.contains(prefix), "\(command): does not publish under \(prefix)\n\(result.stdoutText)")
                    }
                    if let expected = command.expectedOutput {
                        var actual = (error ? result.stderrText : result.stdoutText).components(separatedBy: "\n")
                        if actual.last == "" { actual.removeLast() }
                        #expect(
                            Self.matches(actual, expected),
                            "\(command): the README shows\n\(expected.joined(separator: "\n"))\nbut it prints\n\(actual.joined(separator: "\n"))"
                        )
                    }
                }
            }
        }
        #expect(ran + Self.notRun.count >= 12, "only \(ran) README commands ran")
    }

    /// The error table near the README's end: each row's command runs on its bad input (made by
    /// ``BadInputCatalogTests``, which also regenerates the table) and gives exactly the row's exit
    /// status and error line.
    @Test func everyRowOfTheErrorTableGivesExactlyItsExitStatusAndError() throws {
        let rows = try Self.errorRows(try Self.readme())
        #expect(rows.count == BadInputCatalogTests.catalogue.count, "the README's error table has \(rows.count) rows")
        for row in rows {
            guard
                let input = BadInputCatalogTests.catalogue.first(where: {
                    $0.what == row.what && BadInputCatalogTests.commandText($0) == row.command
                })
            else {
                Issue.record("README's error table: \(row) is not a case BadInputCatalogTests knows how to run")
                continue
            }
            let (status, error) = try BadInputCatalogTests.run(input)
            #expect(status == row.status, "\(row): exit \(status)")
            #expect(error == row.error, "\(row): prints \(error)")
        }
    }
}
