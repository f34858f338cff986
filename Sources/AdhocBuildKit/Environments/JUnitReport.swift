import PlistKit
import SystemSupport

/// Writes check results as JUnit XML, which Jenkins, TeamCity and GitLab show as test results.
///
/// A failure is one error, counted as `env check` counts it on the console: an error several
/// environments share (an undefined variable in Base, say) is one failing test case, named by the
/// environments it concerns, not one per environment, so `failures` is the console's error count.
/// Each environment without an error is one passing test case. Warnings are never failures: they
/// go to the output of the environment's test case (its first failing one when it has errors).
public enum JUnitReport {
    /// One `<testcase>`: an environment that passed, or one error and the environments it concerns.
    struct TestCase {
        var environments: [String]
        var file: String
        var failure: Diagnostic?
        var output: [String] = []

        var name: String { environments.joined(separator: ", ") }
    }

    public static func xml(suite: String, results: [EnvironmentChecker.Result]) -> String {
        let cases = testCases(results)
        let failures = cases.filter { $0.failure != nil }.count
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites name=\"\(XMLText.escape(suite))\" tests=\"\(cases.count)\" failures=\"\(failures)\">",
            "  <testsuite name=\"\(XMLText.escape(suite))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\">"
        ]
        var names: [String: Int] = [:]
        for testCase in cases {
            // Two errors of the same environments are two cases; the second is named "… (2)".
            names[testCase.name, default: 0] += 1
            let name = names[testCase.name]! == 1 ? testCase.name : "\(testCase.name) (\(names[testCase.name]!))"
            lines.append(
                "    <testcase classname=\"environments\" name=\"\(XMLText.escape(name))\" file=\"\(XMLText.escape(testCase.file))\">")
            if let failure = testCase.failure {
                lines.append(
                    "      <failure message=\"\(XMLText.escape(failure.description))\" type=\"EnvironmentCheck\">"
                        + XMLText.escape(failure.description)
                        + "</failure>")
            }
            if !testCase.output.isEmpty {
                lines.append("      <system-out>" + XMLText.escape(testCase.output.joined(separator: "\n")) + "</system-out>")
            }
            lines.append("    </testcase>")
        }
        lines += ["  </testsuite>", "</testsuites>", ""]
        return lines.joined(separator: "\n")
    }

    /// The test cases in the order of `results`: an environment's own case where it passed, each
    /// error's case where the first environment it concerns is.
    static func testCases(_ results: [EnvironmentChecker.Result]) -> [TestCase] {
        var cases: [TestCase] = []
        var caseOfError: [String: Int] = [:]
        for result in results {
            var first: Int?
            for error in result.errors {
                let key = error.description
                if let index = caseOfError[key] {
                    if !cases[index].environments.contains(result.name) { cases[index].environments.append(result.name) }
                    first = first ?? index
                } else {
                    caseOfError[key] = cases.count
                    first = first ?? cases.count
                    cases.append(TestCase(environments: [result.name], file: error.file ?? result.file, failure: error))
                }
            }
            if first == nil {
                first = cases.count
                cases.append(TestCase(environments: [result.name], file: result.file))
            }
            for warning in result.warnings.map({ "warning: \($0)" }) where !cases[first!].output.contains(warning) {
                cases[first!].output.append(warning)
            }
        }
        return cases
    }
}
