/// Writes check results as JUnit XML, which Jenkins, TeamCity and GitLab show as test results:
/// one test case per environment, failing with its errors; warnings go to its output.
public enum JUnitReport {
    public static func xml(suite: String, results: [EnvironmentChecker.Result]) -> String {
        let failures = results.filter { !$0.errors.isEmpty }.count
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<testsuites name=\"\(escape(suite))\" tests=\"\(results.count)\" failures=\"\(failures)\">",
            "  <testsuite name=\"\(escape(suite))\" tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"0\">"
        ]
        for result in results {
            lines.append("    <testcase classname=\"environments\" name=\"\(escape(result.name))\" file=\"\(escape(result.file))\">")
            if !result.errors.isEmpty {
                let summary = result.errors.count == 1 ? result.errors[0].description : "\(result.errors.count) problems"
                lines.append(
                    "      <failure message=\"\(escape(summary))\" type=\"EnvironmentCheck\">"
                        + escape(result.errors.map(\.description).joined(separator: "\n")) + "</failure>")
            }
            if !result.warnings.isEmpty {
                lines.append(
                    "      <system-out>" + escape(result.warnings.map { "warning: \($0)" }.joined(separator: "\n"))
                        + "</system-out>")
            }
            lines.append("    </testcase>")
        }
        lines += ["  </testsuite>", "</testsuites>", ""]
        return lines.joined(separator: "\n")
    }

    /// Escapes text for XML content and attribute values; drops characters XML 1.0 cannot hold.
    public static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case "\r": out += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
