import Foundation

/// The CI servers adhocbuild reports to, detected from their environment or chosen with `--ci`.
public enum CIServer: String, CaseIterable, Sendable {
    case teamcity, jenkins, github, gitlab, none

    /// The server whose variables are set: `TEAMCITY_VERSION`, `GITHUB_ACTIONS`, `GITLAB_CI`, `JENKINS_URL`.
    public static func detect(in environment: [String: String]) -> CIServer {
        if environment["TEAMCITY_VERSION"] != nil { return .teamcity }
        if environment["GITHUB_ACTIONS"] == "true" { return .github }
        if environment["GITLAB_CI"] != nil { return .gitlab }
        if environment["JENKINS_URL"] != nil || environment["BUILD_URL"] != nil && environment["JENKINS_HOME"] != nil {
            return .jenkins
        }
        return .none
    }
}

/// TeamCity service messages, escaped as TeamCity specifies: `|'`, `|n`, `|r`, `|[`, `|]`, `||`,
/// and `|0xNNNN` for characters outside ASCII.
public enum TeamCityMessage {
    public static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "'": out += "|'"
            case "\n": out += "|n"
            case "\r": out += "|r"
            case "[": out += "|["
            case "]": out += "|]"
            case "|": out += "||"
            default:
                if scalar.value > 0x7F || scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    out += "|0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `##teamcity[name 'value']`.
    public static func single(_ name: String, _ value: String) -> String { "##teamcity[\(name) '\(escape(value))']" }

    /// `##teamcity[name key='value' …]`.
    public static func attributes(_ name: String, _ attributes: [(String, String)]) -> String {
        "##teamcity[\(name) " + attributes.map { "\($0.0)='\(escape($0.1))'" }.joined(separator: " ") + "]"
    }
}
