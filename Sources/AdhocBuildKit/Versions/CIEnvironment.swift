/// What continuous-integration servers put in the environment.
public enum CIEnvironment {
    /// The variables that carry a CI build counter, in the order they are tried:
    /// TeamCity and Jenkins (`BUILD_NUMBER`), GitHub Actions (`GITHUB_RUN_NUMBER`), GitLab (`CI_PIPELINE_IID`).
    public static let buildNumberVariables = ["BUILD_NUMBER", "GITHUB_RUN_NUMBER", "CI_PIPELINE_IID"]

    /// The variables that carry the commit being built: GitHub Actions, GitLab, Jenkins, TeamCity.
    public static let commitVariables = ["GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", "BUILD_VCS_NUMBER"]

    /// The variables that carry the branch being built: GitHub Actions, GitLab, Jenkins (two plugins).
    public static let branchVariables = ["GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "GIT_BRANCH", "BRANCH_NAME"]

    /// The CI variables an environment file may read from the process environment without
    /// `--allow-env` (``ProcessVariablePolicy``): those above, and Jenkins' `BUILD_URL`.
    public static let expandableVariables: Set<String> = Set(buildNumberVariables + commitVariables + branchVariables + ["BUILD_URL"])

    /// The CI build counter, when one of `buildNumberVariables` is set and not empty.
    public static func buildNumber(in environment: [String: String]) -> String? { buildNumberSource(in: environment)?.value }

    /// The CI build counter and the variable it is read from, when one of `buildNumberVariables` is set and not empty.
    public static func buildNumberSource(in environment: [String: String]) -> (variable: String, value: String)? {
        for name in buildNumberVariables {
            if let value = environment[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// The commit being built, when one of `commitVariables` is set and not empty.
    public static func commit(in environment: [String: String]) -> String? { first(commitVariables, in: environment) }

    /// The branch being built, when one of `branchVariables` is set and not empty.
    public static func branch(in environment: [String: String]) -> String? { first(branchVariables, in: environment) }

    static func first(_ names: [String], in environment: [String: String]) -> String? {
        for name in names {
            if let value = environment[name], !value.isEmpty { return value }
        }
        return nil
    }
}
