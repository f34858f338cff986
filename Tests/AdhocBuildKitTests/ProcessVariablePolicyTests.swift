import AdhocBuildKit
import Testing

/// Which variables of the process environment an environment may read.
@Suite struct ProcessVariablePolicyTests {
    @Test func theCIVariablesAdhocbuildReadsAreAllowedAndNothingElseUnlessListed() {
        let policy = ProcessVariablePolicy()
        for name in [
            "BUILD_NUMBER", "GITHUB_RUN_NUMBER", "CI_PIPELINE_IID", "GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", "BUILD_VCS_NUMBER",
            "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "GIT_BRANCH", "BRANCH_NAME", "BUILD_URL"
        ] {
            #expect(policy.verdict(for: name) == .allowed, "\(name)")
        }
        for name in ["HOME", "PATH", "API_HOST", "USER"] {
            #expect(policy.verdict(for: name) == .notAllowed, "\(name)")
            #expect(ProcessVariablePolicy(allowed: [name]).verdict(for: name) == .allowed, "\(name)")
        }
    }

    @Test func secretsAreNeverAllowedEvenWhenListed() {
        let signing = "adhocbuild reads it for signing"
        let cases: [(String, String)] = [
            ("ADHOCBUILD_SIGN_PASSWORD", signing), ("ADHOCBUILD_SIGN_PASSWORD_FILE", signing),
            ("ADHOCBUILD_SIGN_IDENTITY", signing),
            ("AWS_SECRET_ACCESS_KEY", "its name contains SECRET"), ("AWS_SESSION_TOKEN", "its name contains TOKEN"),
            ("AWS_ACCESS_KEY_ID", "its name has the word KEY"), ("GITHUB_TOKEN", "its name contains TOKEN"),
            ("CI_JOB_TOKEN", "its name contains TOKEN"), ("MATCH_PASSWORD", "its name contains PASSWORD"),
            ("db_pass", "its name has the word PASS"), ("SIGNING_KEY", "its name has the word KEY"),
            ("DOCKER_AUTH_CONFIG", "its name has the word AUTH"), ("GH_PAT", "its name has the word PAT"),
            ("MY_APIKEY", "its name contains APIKEY"), ("SSH_PRIVATE_KEY_PATH", "its name contains PRIVATE"),
            ("KEYSTORE_PASSPHRASE", "its name contains PASSPHRASE")
        ]
        for (name, reason) in cases {
            #expect(ProcessVariablePolicy(allowed: [name]).verdict(for: name) == .secret(reason: reason), "\(name)")
        }
        // Names that only look close are not secrets.
        for name in ["GIT_AUTHOR_NAME", "KEYCHAIN_NAME", "MONKEY", "PASSAGE", "PATH"] {
            #expect(ProcessVariablePolicy.secretLikeReason(name) == nil, "\(name)")
        }
    }

    @Test func theVariableSigningReadsThePasswordFromIsASecretWhateverItsName() {
        let policy = ProcessVariablePolicy(allowed: ["P12"], secrets: ["P12"])
        #expect(policy.verdict(for: "P12") == .secret(reason: "adhocbuild reads it for signing"))
    }

    @Test func problemsSayHowToAllowOrThatNothingCan() {
        let policy = ProcessVariablePolicy()
        #expect(policy.problem(reading: "HOME", as: "$(HOME)", isSet: false, settable: true) == nil)
        #expect(
            policy.problem(reading: "HOME", as: "$(HOME)", isSet: true, settable: true)
                == "$(HOME) is not allowed from the process environment (allow it with --allow-env HOME, define it in Variables, "
                + "or give it with --setting HOME=VALUE)")
        #expect(
            policy.problem(reading: "GITHUB_TOKEN", as: "{GITHUB_TOKEN}", isSet: false, settable: false)
                == "{GITHUB_TOKEN} is never expanded from the process environment: its name contains TOKEN, "
                + "and --allow-env cannot allow it")
    }
}
