import AdhocBuildKit
import Foundation
import PlistKit
import TestSupport
import Testing

@Suite struct EnvironmentCheckerTests {
    @Test func theSampleEnvironmentsAreCompleteAndConsistent() throws {
        let results = EnvironmentChecker(resolver: try SampleEnvironments.resolver()).check()
        #expect(results.map(\.name) == ["Debug", "QA", "Release", "Staging"])
        #expect(results.flatMap(\.problems) == [])
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
            let results = EnvironmentChecker(resolver: EnvironmentResolver(store: try EnvironmentStore(at: path))).check()
            let lines = results.flatMap { result in result.problems.map { "\($0.severity.rawValue): \($0)" } }
            #expect(
                lines == [
                    "warning: \(path)/Debug.plist: at 'Settings:API': 'http://localhost:8080' is not https; iOS refuses OTA installs and App Transport Security blocks plain http",
                    "error: \(path)/Debug.plist: at 'Info:CFBundleIdentifier': 'com.example.app debug' is not a valid bundle identifier: ' ' is not allowed (only letters, digits, '-' and '.')",
                    "error: \(path)/Base.plist: at 'Settings:Timeout': is an integer here but a string in Staging",
                    "error: \(path)/Debug.plist: at 'Settings:Token': is missing (Staging has it)",
                    "error: \(path)/Loop.plist: at 'Inherits': inheritance cycle: Loop -> Loop",
                    "error: \(path)/Staging.plist: at 'Settings:Token': $(STAGING_TOKEN) is not defined (give it with --setting STAGING_TOKEN=VALUE, or add :default=VALUE)",
                    "error: \(path)/Staging.plist: at 'Info:CFBundleIdentifier': 'com.example..staging' is not a valid bundle identifier: it has an empty part between periods",
                    "error: \(path)/Staging.plist: at 'Settings:Timeout': is a string here but an integer in Debug",
                    "error: \(path)/Staging.plist: at 'Settings:Verbose': is missing (Debug has it)"
                ])
        }
    }

    @Test func checksOnlyTheNamedEnvironmentsAgainstEachOther() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments(["A": ["Settings": ["x": 1]], "B": ["Settings": ["x": 2]], "C": ["Settings": ["y": 1]]])
            let checker = EnvironmentChecker(resolver: EnvironmentResolver(store: try EnvironmentStore(at: path)))
            #expect(checker.check(["A", "B"]).flatMap(\.problems) == [])
            #expect(checker.check(["A", "C"]).flatMap(\.problems).count == 2)
        }
    }

    @Test func junitOutputIsWellFormedAndCountsFailures() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments(["A": ["Settings": ["url": "http://x & <y>"]], "B": ["Settings": [:], "Inherits": "Z"]])
            let results = EnvironmentChecker(resolver: EnvironmentResolver(store: try EnvironmentStore(at: path))).check()
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
}
