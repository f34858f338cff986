/// What continuous-integration servers put in the environment.
public enum CIEnvironment {
    /// The variables that carry a CI build counter, in the order they are tried:
    /// TeamCity and Jenkins (`BUILD_NUMBER`), GitHub Actions (`GITHUB_RUN_NUMBER`), GitLab (`CI_PIPELINE_IID`).
    public static let buildNumberVariables = ["BUILD_NUMBER", "GITHUB_RUN_NUMBER", "CI_PIPELINE_IID"]

    /// The CI build counter, when one of `buildNumberVariables` is set and not empty.
    public static func buildNumber(in environment: [String: String]) -> String? {
        for name in buildNumberVariables {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }
}
