import Foundation
import TestSupport
import Testing

/// Every option that takes a value says in the help what happens without it: its default, or that it
/// is required or repeatable. The few that simply turn something on are listed with the reason.
@Suite struct HelpDefaultsTests {
    /// Options whose absence means "none" (nothing is added), with the reason there is no default.
    static let withoutDefault: [String: String] = [
        "env apply --app": "one of --app and --project is required",
        "env apply --project": "one of --app and --project is required",
        "env check --junit": "without it no JUnit file is written",
        "version show --plist": "an alternative to --project, which has the default",
        "version bump --plist": "an alternative to --project, which has the default",
        "version bump --to": "without it the last component is raised, as the help's description says",
        "version bump --output": "needed only when APP is an .ipa or a .zip, which is never changed in place unless it names it",
        "package --profile": "without it no profile is embedded",
        "manifest --subtitle": "without it the manifest has no subtitle",
        "page --notes": "without it the page has no release notes",
        "page --environment": "without it the page shows no environment badge",
        "page --templates": "without it the built-in templates are used, as the option's help says",
        "page --icon": "without it the bundle's icon is used, as the option's help says",
        "release --build-number": "without it the app's build number is kept",
        "codesign verify --anchor": "without it the chains are not checked against Apple's root, as codesign without -R",
        "verify --anchor": "without it the chains are not checked against Apple's root, as codesign without -R",
        "release --teamcity-server": "needed only with --ci teamcity, as its help says",
        "release --build-type-id": "needed only with --ci teamcity, as its help says",
        "release --build-id": "needed only with --ci teamcity, as its help says"
    ]

    /// Each command's help, by command path (`env apply`), read from the tool itself.
    func helps() throws -> [String: String] {
        var helps: [String: String] = [:]
        var pending: [[String]] = [[]]
        while let path = pending.popLast() {
            let help = try AdhocBuildBinary.run(["help"] + path)
            #expect(help.status == 0, "help \(path): \(help.stderrText)")
            helps[path.joined(separator: " ")] = help.stdoutText
            var section = ""
            for line in help.stdoutText.split(separator: "\n") {
                if !line.hasPrefix(" ") && line.hasSuffix(":") { section = String(line) }
                if section == "Commands:", line.hasPrefix("  "), let name = line.split(separator: " ").first {
                    pending.append(path + [String(name)])
                }
            }
        }
        return helps
    }

    /// The entries of a help's Options section, continuation lines joined: (`--name`, takes a value, text).
    static func options(in help: String) -> [(name: String, takesValue: Bool, text: String)] {
        var entries: [String] = []
        var inOptions = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") { inOptions = line == "Options:" }
            guard inOptions, line.hasPrefix("  ") else { continue }
            if line.hasPrefix("  -") {
                entries.append(String(line))
            } else if !entries.isEmpty {
                entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return entries.map { entry in
            // `  -o, --output OUT  Help…`: the names and the value's placeholder come before two spaces.
            let head = entry.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
            let words = head.split(separator: " ")
            let names = words.prefix { $0.hasPrefix("-") }.map { $0.trimmingCharacters(in: [","]) }
            return (names.last ?? "", words.count > names.count, entry)
        }
    }

    @Test func everyOptionThatTakesAValueShowsItsDefaultOrWhyItHasNone() throws {
        let helps = try helps()
        var seen: Set<String> = []
        for (command, help) in helps where !command.isEmpty {
            for option in Self.options(in: help) where option.takesValue {
                let key = "\(command) \(option.name)"
                seen.insert(key)
                let explained = ["default: ", "required", "repeatable"].contains { option.text.contains($0) }
                if explained {
                    #expect(Self.withoutDefault[key] == nil, "\(key) shows its default now; take it off withoutDefault")
                } else {
                    #expect(
                        Self.withoutDefault[key] != nil, "help of \(command): \(option.name) does not show its default:\n\(option.text)")
                }
            }
        }
        #expect(seen.contains("env apply --format") && seen.contains("page --bundle-version"), "\(seen.sorted())")
        for key in Self.withoutDefault.keys { #expect(seen.contains(key), "withoutDefault lists \(key), which no command takes") }
    }
}
