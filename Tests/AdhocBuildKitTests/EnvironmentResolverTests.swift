import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct EnvironmentResolverTests {
    @Test func mergesBaseTheInheritedChainAndTheEnvironmentInOrder() throws {
        let qa = try SampleEnvironments.resolver().resolve("QA")
        #expect(qa.chain == ["Staging", "QA"])
        #expect(qa.settings["APIBaseURL"] == "https://api-staging.shoutout.example.com/v2/")
        #expect(qa.settings["LogLevel"] == "debug")
        #expect(qa.settings["Features"] == ["Reactions": true, "VoiceShouts": true])
        #expect(qa.info["CFBundleIdentifier"] == "com.example.shoutout.qa")
        #expect(qa.info["CFBundleDisplayName"] == "ShoutOut QA")
        #expect(qa.info["Configuration"] == "QA")
        #expect(qa.distribution["Subtitle"] == "Staging — for the QA team")
    }

    @Test func explainsWhichFileSetEveryLeaf() throws {
        let qa = try SampleEnvironments.resolver().resolve("QA")
        let sources = Dictionary(
            qa.leaves.map { ($0.keyPath.description, ($0.file as NSString).lastPathComponent) },
            uniquingKeysWith: { a, _ in a })
        #expect(sources["Settings:APIBaseURL"] == "Base.plist")
        #expect(sources["Settings:Features:Reactions"] == "Staging.plist")
        #expect(sources["Settings:Features:VoiceShouts"] == "QA.plist")
        #expect(sources["Distribution:Subtitle"] == "Staging.plist")
    }

    @Test func commandLineOverridesComeLastAndKeepTheExistingType() throws {
        let resolver = try SampleEnvironments.resolver(overrides: [
            (["Settings", "RequestTimeout"], "90"), (["Settings", "Extra", "Flag"], "on")
        ])
        let staging = try resolver.resolve("Staging")
        #expect(staging.settings["RequestTimeout"] == 90)
        #expect(staging.settings["Extra"] == ["Flag": "on"])
        #expect(staging.leaf(at: ["Settings", "RequestTimeout"])?.file == "--set")
        let bad = try SampleEnvironments.resolver(overrides: [(["Settings", "RequestTimeout"], "soon")])
        #expect(
            throws: Diagnostic.build("'soon' is not an integer from -2^63 to 2^64-1", file: "--set", keyPath: "Settings:RequestTimeout")
        ) {
            try bad.resolve("Staging")
        }
    }

    @Test func settingsAndBuiltInsFeedVariablesInOrderOfStrength() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments([
                "Beta": [
                    "Variables": ["HOST": "beta.example.com"],
                    "Settings": ["URL": "https://$(HOST)/", "Build": "$(BUILD_NUMBER)", "Name": "$(CONFIGURATION:lower)", "Home": "$(HOME)"]
                ]
            ])
            // The process environment last, and only for the variables allowed (HOME with --allow-env).
            let resolver = EnvironmentResolver(
                store: try EnvironmentStore(at: path), settings: ["HOST": "override.example.com"],
                processEnvironment: ["GITHUB_RUN_NUMBER": "77", "HOME": "/home/ci"],
                variablePolicy: ProcessVariablePolicy(allowed: ["HOME"]))
            let beta = try resolver.resolve("Beta")
            #expect(
                PlistValue.dictionary(beta.settings) == [
                    "URL": "https://override.example.com/", "Build": "77", "Name": "beta", "Home": "/home/ci"
                ])
        }
    }

    @Test func anUndefinedVariableNamesTheFileAndKeyPathThatUseIt() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments(["Base": ["Settings": ["API": "https://$(API_HOST)/"]], "Debug": [:]])
            let resolver = EnvironmentResolver(store: try EnvironmentStore(at: path))
            #expect(
                throws: Diagnostic.build(
                    "$(API_HOST) is not defined in Debug (define it in Variables, give it with --setting API_HOST=VALUE, "
                        + "or add :default=VALUE)",
                    file: path + "/Base.plist", keyPath: "Settings:API")
            ) {
                try resolver.resolve("Debug")
            }
        }
    }

    @Test func inheritanceCyclesAndMissingParentsNameTheChain() throws {
        try withTemporaryFolder { folder in
            let path = try folder.environments([
                "A": ["Inherits": "B"], "B": ["Inherits": "C"], "C": ["Inherits": "A"],
                "D": ["Inherits": "Nowhere"]
            ])
            let resolver = EnvironmentResolver(store: try EnvironmentStore(at: path))
            #expect(throws: Diagnostic.build("inheritance cycle: A -> B -> C -> A", file: path + "/A.plist", keyPath: "Inherits")) {
                try resolver.resolve("A")
            }
            #expect(
                throws: Diagnostic.build(
                    "inherits 'Nowhere', which does not exist (D -> Nowhere)", file: path + "/D.plist",
                    keyPath: "Inherits")
            ) {
                try resolver.resolve("D")
            }
        }
    }

    @Test func diffListsAddedRemovedAndChangedKeyPaths() throws {
        let resolver = try SampleEnvironments.resolver()
        let diff = EnvironmentDiff(from: try resolver.resolve("Staging"), to: try resolver.resolve("Release"))
        #expect(
            diff.lines == [
                "~ Variables:API_HOST: \"api-staging.shoutout.example.com\" -> \"api.shoutout.example.com\"",
                "- Variables:BUNDLE_ID_SUFFIX = \".staging\"",
                "~ Settings:APIBaseURL: \"https://api-staging.shoutout.example.com/v2/\" -> \"https://api.shoutout.example.com/v2/\"",
                "~ Settings:WebSocketURL: \"wss://api-staging.shoutout.example.com/live\" -> \"wss://api.shoutout.example.com/live\"",
                "~ Settings:LogLevel: \"info\" -> \"error\"",
                "~ Settings:Features:Reactions: true -> false",
                "~ Info:CFBundleIdentifier: \"com.example.shoutout.staging\" -> \"com.example.shoutout\"",
                "~ Info:CFBundleDisplayName: \"ShoutOut β\" -> \"ShoutOut\"",
                "~ Info:Configuration: \"Staging\" -> \"Release\"",
                "~ Distribution:Subtitle: \"Staging — for the QA team\" -> \"Release candidate\""
            ])
    }
}
