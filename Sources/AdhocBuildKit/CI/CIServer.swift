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
