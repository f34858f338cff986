import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct EnvironmentCheckerTests {
    @Test func theSampleEnvironmentsAreCompleteAndConsistent() throws {
        let report = EnvironmentChecker(resolver: try SampleEnvironments.resolver()).check()
        #expect(report.results.map(\.name) == ["Debug", "QA", "Release", "Staging"])
        #expect(report.problems == [])
        #expect(report.summary == "4 environments checked: 0 errors, 0 warnings")
    }

    @Test func reportsEveryProblemAtOnceEachNamingFileAndKeyPath() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments([
                "Base": ["Settings": ["API": "https://api.example.com", "Timeout": 30]],
                "Debug": [
                    "Settings": ["API": "http://localhost:8080", "Verbose": true], "Info": ["CFBundleIdentifier": "com.example.app debug"]
                ],
                "Staging": [
                    "Settings": ["Timeout": "thirty", "Token": "$(STAGING_TOKEN)"], "Info": ["CFBundleIdentifier": "com.example..staging"]
                ],
                "Loop": ["Inherits": "Loop"]
            ])
            let report = EnvironmentChecker(resolver: EnvironmentResolver(store: try EnvironmentStore(at: path))).check()
            let lines = report.problems.map { "\($0.severity.rawValue): \($0)" }
            #expect(
                lines == [
                    "warning: \(path)/Debug.plist: at 'Settings:API': 'http://localhost:8080' is not https; iOS refuses OTA installs and App Transport Security blocks plain http",
                    "error: \(path)/Debug.plist: at 'Info:CFBundleIdentifier': 'com.example.app debug' is not a valid bundle identifier: ' ' is not allowed (only letters, digits, '-' and '.')",
                    "error: \(path)/Base.plist: at 'Settings:Timeout': is an integer here but a string in Staging",
                    "error: \(path)/Debug.plist: at 'Settings:Token': is missing (Staging has it)",
                    "error: \(path)/Loop.plist: at 'Inherits': inheritance cycle: Loop -> Loop",
                    "error: \(path)/Staging.plist: at 'Settings:Token': $(STAGING_TOKEN) is never expanded from the process environment: its name contains TOKEN, and --allow-env cannot allow it (define it in Variables, or give it with --setting STAGING_TOKEN=VALUE)",
                    "error: \(path)/Staging.plist: at 'Info:CFBundleIdentifier': 'com.example..staging' is not a valid bundle identifier: it has an empty part between periods",
                    "error: \(path)/Staging.plist: at 'Settings:Timeout': is a string here but an integer in Debug",
                    "error: \(path)/Staging.plist: at 'Settings:Verbose': is missing (Debug has it)"
                ])
        }
    }

    /// Checks every environment of `files` (or only `names`) and returns the lines it would print,
    /// with file paths relative to the environments folder.
    func check(_ files: [String: PlistValue], _ names: [String] = [], overrides: [(keyPath: PlistKeyPath, value: String)] = [])
        throws -> [String]
    {
        try withTemporaryFolder { folder in
            let path = try folder.environments(files)
            let resolver = EnvironmentResolver(store: try EnvironmentStore(at: path), overrides: overrides)
            let report = EnvironmentChecker(resolver: resolver).check(names)
            return report.problems.map {
                "\($0.severity.rawValue): \($0)".replacingOccurrences(of: path + "/", with: "").replacingOccurrences(
                    of: path, with: "environments")
            } + [report.summary]
        }
    }

    @Test func aKeyOnlyAMinorityHaveIsBlamedOnTheirFileWithDidYouMeanInOneLine() throws {
        // LogLevel misspelt in Release: Release is the odd one out, and its missing LogLevel is the same typo.
        let misspelt: [String: PlistValue] = [
            "Debug": ["Settings": ["LogLevel": "debug"]], "Staging": ["Settings": ["LogLevel": "info"]],
            "Release": ["Settings": ["LogLevl": "error"]]
        ]
        #expect(
            try check(misspelt) == [
                "error: Release.plist: at 'Settings:LogLevl': only Release has this key (Debug, Staging do not); "
                    + "did you mean 'Settings:LogLevel'?",
                "3 environments checked: 1 error, 0 warnings"
            ])
        // With LogLevel in Base every environment has it, and the typo still stands out.
        var withBase = misspelt
        withBase["Base"] = ["Settings": ["LogLevel": "info"]]
        #expect(
            try check(withBase) == [
                "error: Release.plist: at 'Settings:LogLevl': only Release has this key (Debug, Staging do not); "
                    + "did you mean 'Settings:LogLevel'?",
                "3 environments checked: 1 error, 0 warnings"
            ])
        // A key far from the others' is still the minority's, without a guess.
        #expect(
            try check(["A": ["Settings": ["x": 1]], "B": ["Settings": ["x": 2]], "C": ["Settings": ["x": 3, "Verbose": true]]]) == [
                "error: C.plist: at 'Settings:Verbose': only C has this key (A, B do not)",
                "3 environments checked: 1 error, 0 warnings"
            ])
        // What the majority have is missing in the rest, reported there.
        #expect(
            try check(["A": ["Settings": ["x": 1]], "B": ["Settings": ["x": 2]], "C": ["Settings": [:]]]) == [
                "error: C.plist: at 'Settings:x': is missing (A, B have it)",
                "3 environments checked: 1 error, 0 warnings"
            ])
    }

    /// Applying an environment checks it as `env check` does, the comparison with the others
    /// included: a Settings key only QA has stopped `env check` but not `env apply`.
    @Test func applyingRefusesAnEnvironmentThatDiffersFromTheOthers() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments([
                "Base": ["Settings": ["API": "https://api.example.com"]],
                "Debug": ["Settings": ["Timeout": 10]],
                "QA": ["Settings": ["Timeout": 20, "DebugMenu": true]],
                "Release": ["Settings": ["Timeout": 30]]
            ])
            let resolver = EnvironmentResolver(store: try EnvironmentStore(at: path))
            do {
                _ = try resolver.resolveForApplying("QA")
                Issue.record("QA was applied")
            } catch let errors as Diagnostics {
                #expect(
                    errors.items.map(\.description) == [
                        "\(path)/QA.plist: at 'Settings:DebugMenu': only QA has this key (Debug, Release do not)"
                    ])
            }
            #expect(try resolver.resolveForApplying("Release").environment.settings["Timeout"] == 30)
        }
    }

    @Test func checkingOneEnvironmentComparesItWithAllTheOthersButReportsOnlyItsOwnProblems() throws {
        let files: [String: PlistValue] = [
            "Debug": ["Settings": ["LogLevel": "debug", "Verbose": true]], "Staging": ["Settings": ["LogLevel": "info"]],
            "Release": ["Settings": ["LogLevl": "error"]]
        ]
        #expect(
            try check(files, ["Release"]) == [
                "error: Release.plist: at 'Settings:LogLevl': only Release has this key (Debug, Staging do not); "
                    + "did you mean 'Settings:LogLevel'?",
                "1 environment checked: 1 error, 0 warnings"
            ])
        #expect(try check(files, ["Staging"]) == ["1 environment checked: 0 errors, 0 warnings"])
        #expect(
            try check(files, ["Debug", "Nowhere"]) == [
                "error: Debug.plist: at 'Settings:Verbose': only Debug has this key (Release, Staging do not)",
                "error: environments: no environment 'Nowhere'; there are Debug, Release, Staging",
                "1 environment checked: 2 errors, 0 warnings"
            ])
    }

    @Test func aTieBetweenTwoEnvironmentsNamesBothSides() throws {
        #expect(
            try check(["Debug": ["Settings": ["LogLevel": "debug"]], "Release": ["Settings": ["LogLevl": "error"]]]) == [
                "error: Debug.plist: at 'Settings:LogLevel': Debug has this key where Release has 'Settings:LogLevl'; "
                    + "is one of them misspelt?",
                "2 environments checked: 1 error, 0 warnings"
            ])
        #expect(
            try check(["A": ["Settings": ["Extra": true]], "B": [:]]) == [
                "error: B.plist: at 'Settings:Extra': is missing (A has it)",
                "2 environments checked: 1 error, 0 warnings"
            ])
    }

    @Test func aTypeOnlyAMinorityUseIsReportedAtTheirFile() throws {
        #expect(
            try check([
                "Base": ["Settings": ["Timeout": 30]], "A": [:], "B": [:], "C": ["Settings": ["Timeout": "thirty"]]
            ]) == [
                "error: C.plist: at 'Settings:Timeout': is a string here but an integer in A, B",
                "3 environments checked: 1 error, 0 warnings"
            ])
    }

    @Test func anUndefinedVariableInBaseIsOneLineNamingTheEnvironmentsItBreaks() throws {
        let files: [String: PlistValue] = [
            "Base": ["Settings": ["APIBaseURL": "https://$(API_HOST)/", "Socket": "wss://$(API_HOST)/"]],
            "Debug": [:], "Staging": [:], "Release": ["Variables": ["API_HOST": "api.example.com"]]
        ]
        let hint = "(define it in Variables, give it with --setting API_HOST=VALUE, or add :default=VALUE)"
        #expect(
            try check(files) == [
                "error: Base.plist: at 'Settings:APIBaseURL': $(API_HOST) is not defined in Debug, Staging \(hint)",
                "error: Base.plist: at 'Settings:Socket': $(API_HOST) is not defined in Debug, Staging \(hint)",
                "3 environments checked: 2 errors, 0 warnings"
            ])
        #expect(try check(files, ["Release"]) == ["1 environment checked: 0 errors, 0 warnings"])
    }

    @Test func aMisspeltInfoKeyIsAnErrorWithDidYouMeanAndTheAppsOwnKeysPass() throws {
        #expect(
            try check([
                "Base": ["Info": ["Configuration": "$(CONFIGURATION)", "APIKey": "k", "UISupportedInterfaceOrientations~ipad": ["x"]]],
                "Debug": ["Info": ["CFBundleDisplayNam": "Shout Dev"]], "Release": ["Info": ["CFBundleDisplayName": "Shout"]]
            ]) == [
                "error: Debug.plist: at 'Info:CFBundleDisplayNam': unknown Info.plist key 'CFBundleDisplayNam'; "
                    + "did you mean 'CFBundleDisplayName'?",
                "2 environments checked: 1 error, 0 warnings"
            ])
    }

    @Test func anUnknownDistributionKeyIsAnErrorWithDidYouMean() throws {
        #expect(
            try check([
                "Base": [
                    "Distribution": ["Title": "T", "Subtitle": "S", "BaseURL": "https://x/", "Notes": "n", "Icon": "i.png", "Profile": "p"]
                ],
                "Debug": ["Distribution": ["Titel": "Dev", "Channel": "beta"]]
            ]) == [
                "error: Debug.plist: at 'Distribution:Titel': unknown Distribution key 'Titel'; did you mean 'Title'?",
                "error: Debug.plist: at 'Distribution:Channel': unknown Distribution key 'Channel'; "
                    + "Distribution has Title, Subtitle, BaseURL, Notes, Icon, Profile, Publish, Devices, EnrollURL",
                "1 environment checked: 2 errors, 0 warnings"
            ])
    }

    @Test func anUnknownTopLevelKeyIsCollectedAndTheOtherEnvironmentsAreStillChecked() throws {
        #expect(
            try check([
                "Debug": ["Settings": ["URL": "http://localhost/"]],
                "Staging": ["Setings": ["URL": "https://x/"], "Settings": ["URL": "https://y/"]],
                "Release": ["Settings": ["URL": "https://z/"], "Info": ["CFBundleIdentifier": "bad id"]]
            ]) == [
                "warning: Debug.plist: at 'Settings:URL': 'http://localhost/' is not https; iOS refuses OTA installs and App Transport "
                    + "Security blocks plain http",
                "error: Release.plist: at 'Info:CFBundleIdentifier': 'bad id' is not a valid bundle identifier: "
                    + "' ' is not allowed (only letters, digits, '-' and '.')",
                "error: Staging.plist: at 'Setings': unknown key 'Setings'; did you mean 'Settings'?",
                "3 environments checked: 2 errors, 1 warning"
            ])
    }

    @Test func anUnparseableFileIsOneProblemAndTheOthersAreStillCheckedWithTheSummary() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments([
                "Debug": ["Settings": ["URL": "https://x/"]],
                "Release": ["Settings": ["URL": "https://y/"], "Info": ["CFBundleIdentifier": "a b"]]
            ])
            try Data("<plist><dict><key>Settings</key><dict></plist>".utf8).write(to: URL(fileURLWithPath: path + "/Staging.plist"))
            let report = EnvironmentChecker(resolver: EnvironmentResolver(store: try EnvironmentStore(at: path))).check()
            let lines = report.problems.map(\.description)
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("\(path)/Staging.plist: 1:") && $0.contains("XML") })
            #expect(lines.contains { $0.hasPrefix("\(path)/Release.plist: at 'Info:CFBundleIdentifier'") })
            #expect(report.summary == "3 environments checked: 2 errors, 0 warnings")
        }
    }

    @Test func aNameThatIsNoEnvironmentIsAnErrorButNotCountedAsChecked() throws {
        #expect(
            try check(["Debug": ["Settings": ["URL": "https://x/"]]], ["Debug", "Stagin"]).last
                == "1 environment checked: 1 error, 0 warnings")
    }

    @Test func setOverridesAreCheckedLikeAFileNamingTheOption() throws {
        let files: [String: PlistValue] = ["Debug": ["Settings": ["LogLevel": "debug"]]]
        #expect(
            try check(
                files,
                overrides: [
                    (["Setings", "LogLevel"], "x"), (["Info", "CFBundleDisplayNam"], "y"), (["Distribution", "Titel"], "z"),
                    (["Info", "MyOwnKey"], "fine"), (["Settings", "LogLevel"], "trace")
                ]) == [
                    "error: --set 'Setings:LogLevel=x': unknown section 'Setings'; did you mean 'Settings'?",
                    "error: --set 'Info:CFBundleDisplayNam=y': unknown Info.plist key 'CFBundleDisplayNam'; did you mean 'CFBundleDisplayName'?",
                    "error: --set 'Distribution:Titel=z': unknown Distribution key 'Titel'; did you mean 'Title'?",
                    "1 environment checked: 3 errors, 0 warnings"
                ])
    }

    /// A `--set` of a Settings key no file has, one or two letters from one they have, is a
    /// misspelling, as the same key in a file would be; a new key unlike any other is the user's to add.
    @Test func aSetOfAMisspeltSettingsKeyIsCaughtAndANewKeyIsNot() throws {
        let files: [String: PlistValue] = [
            "Debug": ["Settings": ["LogLevel": "debug", "Features": ["Reactions": true]]],
            "Release": ["Settings": ["LogLevel": "error", "Features": ["Reactions": false]]]
        ]
        #expect(
            try check(files, overrides: [(["Settings", "LogLevl"], "x"), (["Settings", "Features", "Reaction"], "true")]) == [
                "error: --set 'Settings:LogLevl=x': no environment file has 'Settings:LogLevl'; did you mean 'Settings:LogLevel'?",
                "error: --set 'Settings:Features:Reaction=true': no environment file has 'Settings:Features:Reaction'; "
                    + "did you mean 'Settings:Features:Reactions'?",
                "2 environments checked: 2 errors, 0 warnings"
            ])
        #expect(try check(files, overrides: [(["Settings", "CrashReporting"], "on")]) == ["2 environments checked: 0 errors, 0 warnings"])
    }

    @Test func junitOutputIsWellFormedAndCountsFailures() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments(["A": ["Settings": ["url": "http://x & <y>"]], "B": ["Settings": [:], "Inherits": "Z"]])
            let results = EnvironmentChecker(resolver: EnvironmentResolver(store: try EnvironmentStore(at: path))).check().results
            let xml = JUnitReport.xml(suite: "adhocbuild env check", results: results)
            let file = try folder.write("report.xml", xml)
            // Python's XML parser is the independent judge of well-formedness.
            let python = try #require(ProcessResult.which("python3"))
            let script = """
                import sys, xml.etree.ElementTree as ET
                root = ET.parse(sys.argv[1]).getroot()
                suite = root.find('testsuite')
                cases = suite.findall('testcase')
                print(suite.get('tests'), suite.get('failures'), [c.get('name') for c in cases],
                      [c.find('failure') is not None for c in cases], cases[0].find('system-out').text)
                """
            let result = try ProcessResult.run(python, ["-c", script, file])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(
                result.stdoutText.hasPrefix(
                    "2 1 ['A', 'B'] [False, True] warning: \(path)/A.plist: at 'Settings:url': 'http://x & <y>' is not https"))
        }
    }

    @Test func junitFailsEveryEnvironmentAProblemConcernsAndOnlyThose() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments([
                "Base": ["Settings": ["API": "https://$(API_HOST)/", "LogLevel": "info"]],
                "Debug": ["Variables": ["API_HOST": "dev.example.com"]], "Staging": [:],
                "Release": ["Variables": ["API_HOST": "example.com"], "Settings": ["LogLevl": "error"]]
            ])
            let report = EnvironmentChecker(resolver: EnvironmentResolver(store: try EnvironmentStore(at: path))).check()
            let xml = JUnitReport.xml(suite: "adhocbuild env check", results: report.results)
            #expect(xml.contains("tests=\"3\" failures=\"2\""))
            #expect(xml.contains("<testcase classname=\"environments\" name=\"Debug\" file=\"\(path)/Debug.plist\">\n    </testcase>"))
            #expect(xml.contains("at &apos;Settings:LogLevl&apos;: only Release has this key (Debug, Staging do not)"))
            #expect(xml.contains("$(API_HOST) is not defined in Staging"))
            #expect(report.summary == "3 environments checked: 2 errors, 0 warnings")
        }
    }
}
