import AdhocBuildKit
import Foundation
import PlistKit
import TestSupport
import Testing

/// `$(NAME)` reads the process environment only where that is allowed, and never a secret: what an
/// environment expands is published (page, index, manifest, build.json, the app's environment.plist).
@Suite struct ProcessEnvironmentExpansionTests {
    static let secrets = ["ADHOCBUILD_SIGN_PASSWORD": "hunter2-p12", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG", "P12": "pw"]

    /// The problems of resolving Staging, as the lines `env show` prints, with paths from the folder.
    func problems(
        _ files: [String: PlistValue], environment: [String: String], policy: ProcessVariablePolicy = ProcessVariablePolicy()
    ) throws -> [String] {
        try withTemporaryFolder { folder in
            let path = try folder.environments(files)
            let resolver = EnvironmentResolver(
                store: try EnvironmentStore(at: path), processEnvironment: environment, variablePolicy: policy)
            return resolver.resolveCollectingProblems("Staging").1.map { $0.description.replacingOccurrences(of: path + "/", with: "") }
        }
    }

    func resolved(_ files: [String: PlistValue], environment: [String: String], policy: ProcessVariablePolicy = ProcessVariablePolicy())
        throws -> ResolvedEnvironment
    {
        try withTemporaryFolder { folder in
            let path = try folder.environments(files)
            return try EnvironmentResolver(store: try EnvironmentStore(at: path), processEnvironment: environment, variablePolicy: policy)
                .resolve("Staging")
        }
    }

    @Test func secretsInTitleAndSettingsAreRefusedEvenWhenSetAndAllowed() throws {
        let lines = try problems(
            [
                "Staging": [
                    "Distribution": ["Title": "ShoutOut $(ADHOCBUILD_SIGN_PASSWORD)"],
                    "Settings": ["AWS": "$(AWS_SECRET_ACCESS_KEY:default=none)"]
                ]
            ], environment: Self.secrets, policy: ProcessVariablePolicy(allowed: ["ADHOCBUILD_SIGN_PASSWORD", "AWS_SECRET_ACCESS_KEY"]))
        #expect(
            lines.sorted() == [
                "Staging.plist: at 'Distribution:Title': $(ADHOCBUILD_SIGN_PASSWORD) is never expanded from the process environment: "
                    + "adhocbuild reads it for signing, and --allow-env cannot allow it "
                    + "(define it in Variables, or give it with --setting ADHOCBUILD_SIGN_PASSWORD=VALUE)",
                "Staging.plist: at 'Settings:AWS': $(AWS_SECRET_ACCESS_KEY) is never expanded from the process environment: "
                    + "its name contains SECRET, and --allow-env cannot allow it "
                    + "(define it in Variables, or give it with --setting AWS_SECRET_ACCESS_KEY=VALUE)"
            ])
        for value in Self.secrets.values { #expect(!lines.joined().contains(value)) }
    }

    @Test func aSecretIsRefusedThroughAVariableAndWhenSigningNamesIt() throws {
        let lines = try problems(
            [
                "Staging": [
                    "Variables": ["LEAK": "$(P12)"], "Distribution": ["Title": "$(LEAK)"],
                    "Settings": ["Token": "$(GITHUB_TOKEN)"]
                ]
            ], environment: Self.secrets.merging(["GITHUB_TOKEN": "ghs_x"]) { $1 },
            policy: ProcessVariablePolicy(allowed: ["P12", "GITHUB_TOKEN"], secrets: ["P12"]))
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Staging.plist: at 'Variables:LEAK': $(P12) is never expanded") })
        #expect(lines.contains { $0.hasPrefix("Staging.plist: at 'Distribution:Title': $(P12) is never expanded") })
        #expect(lines.contains { $0.hasPrefix("Staging.plist: at 'Settings:Token': $(GITHUB_TOKEN) is never expanded") })
    }

    @Test func aVariableThatIsSetButNotAllowedIsAnErrorNeverSilentlyLeftOut() throws {
        let lines = try problems(
            ["Staging": ["Settings": ["Host": "$(DEPLOY_HOST:default=fallback.example.com)", "Home": "$(HOME)"]]],
            environment: ["DEPLOY_HOST": "deploy.example.com", "HOME": "/home/ci"])
        #expect(
            lines.sorted() == [
                "Staging.plist: at 'Settings:Home': $(HOME) is not allowed from the process environment "
                    + "(allow it with --allow-env HOME, define it in Variables, or give it with --setting HOME=VALUE)",
                "Staging.plist: at 'Settings:Host': $(DEPLOY_HOST) is not allowed from the process environment "
                    + "(allow it with --allow-env DEPLOY_HOST, define it in Variables, or give it with --setting DEPLOY_HOST=VALUE)"
            ])
    }

    @Test func ciVariablesAndAllowedOnesExpandAndAnUnsetOneTakesItsDefault() throws {
        let staging = try resolved(
            [
                "Staging": [
                    "Settings": [
                        "Commit": "$(GITHUB_SHA)", "Branch": "$(CI_COMMIT_REF_NAME)", "Build": "$(BUILD_NUMBER)",
                        "Host": "$(DEPLOY_HOST)", "Region": "$(REGION:default=eu)"
                    ]
                ]
            ], environment: ["GITHUB_SHA": "abc123", "CI_COMMIT_REF_NAME": "main", "BUILD_NUMBER": "77", "DEPLOY_HOST": "d.example.com"],
            policy: ProcessVariablePolicy(allowed: ["DEPLOY_HOST"]))
        #expect(
            PlistValue.dictionary(staging.settings) == [
                "Commit": "abc123", "Branch": "main", "Build": "77", "Host": "d.example.com", "Region": "eu"
            ])
    }
}
