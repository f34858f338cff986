import AdhocBuildKit
import Foundation
import PlistKit
import TestSupport
import Testing

@Suite struct EnvironmentStoreTests {
    @Test func readsTheSampleFolderWithBaseAndInheritance() throws {
        let store = try EnvironmentStore(at: SampleEnvironments.path)
        #expect(store.base?.name == "Base")
        #expect(store.environments.map(\.name) == ["Debug", "QA", "Release", "Staging"])
        #expect(store.environments.first { $0.name == "QA" }?.inherits == "Staging")
        #expect(try store.chain(for: "QA").map(\.name) == ["Staging", "QA"])
    }

    @Test func findsEnvironmentsRegardlessOfCaseAndSuggestsNearNames() throws {
        let store = try EnvironmentStore(at: SampleEnvironments.path)
        #expect(try store.environment(named: "staging").name == "Staging")
        #expect(throws: AdhocBuildError("no environment 'Stagin'; did you mean 'Staging'?", file: SampleEnvironments.path)) {
            try store.environment(named: "Stagin")
        }
        #expect(
            throws: AdhocBuildError(
                "no environment 'Production'; there are Debug, QA, Release, Staging",
                file: SampleEnvironments.path)
        ) {
            try store.environment(named: "Production")
        }
        // Base is the layer under every environment: said so, not "did you mean 'QA'?".
        #expect(
            throws: AdhocBuildError(
                "'Base' is the layer every environment is built on, not an environment of its own; "
                    + "there are Debug, QA, Release, Staging", file: SampleEnvironments.path + "/Base.plist")
        ) {
            try store.environment(named: "Base")
        }
    }

    @Test func readsTheSeedArticlesSingleEnvironmentsPlist() throws {
        try withTemporaryFolder { folder in
            let file = try folder.create(
                "Environments.plist",
                try PropertyList.encode(
                    [
                        "Debug": ["myAPIURL": "https://dev.example.com"],
                        "Release": ["myAPIURL": "https://example.com"],
                        "Staging": ["Inherits": "Release", "Settings": ["myAPIURL": "https://staging.example.com"]]
                    ], format: .xml))
            let store = try EnvironmentStore(at: file)
            #expect(store.environments.map(\.name) == ["Debug", "Release", "Staging"])
            let resolver = EnvironmentResolver(store: store)
            #expect(try resolver.resolve("Debug").settings["myAPIURL"] == "https://dev.example.com")
            let staging = try resolver.resolve("Staging")
            #expect(staging.settings["myAPIURL"] == "https://staging.example.com")
            #expect(staging.leaves.first?.file == file)
            #expect(staging.leaves.first?.sourceKeyPath == ["Staging", "Settings", "myAPIURL"])
        }
    }

    @Test func rejectsSchemaMistakesNamingFileAndKeyPath() throws {
        try withTemporaryFolder { folder in
            let environments = try folder.environments(["Debug": ["Setings": ["a": 1]]])
            #expect(
                throws: AdhocBuildError(
                    "unknown key 'Setings'; did you mean 'Settings'?", file: environments + "/Debug.plist",
                    keyPath: "Setings")
            ) {
                try EnvironmentStore(at: environments)
            }
            let second = try folder.environments(["Debug": ["Settings": "flat"]], folder: "second")
            #expect(
                throws: AdhocBuildError(
                    "Settings must be a dictionary, not a string", file: second + "/Debug.plist",
                    keyPath: "Settings")
            ) {
                try EnvironmentStore(at: second)
            }
            let third = try folder.environments(["Base": ["Inherits": "Debug"], "Debug": [:]], folder: "third")
            #expect(
                throws: AdhocBuildError("Base.plist cannot inherit (it names 'Debug')", file: third + "/Base.plist", keyPath: "Inherits")
            ) {
                try EnvironmentStore(at: third)
            }
            let fourth = try folder.environments(["Debug": ["Variables": ["N": 1]]], folder: "fourth")
            #expect(
                throws: AdhocBuildError(
                    "a variable must be a string, not an integer", file: fourth + "/Debug.plist", keyPath: "Variables:N")
            ) {
                try EnvironmentStore(at: fourth)
            }
            #expect(
                throws: AdhocBuildError(
                    "no environments here (expected a folder of environment plists or an Environments.plist)",
                    file: folder.path("missing"))
            ) {
                try EnvironmentStore(at: folder.path("missing"))
            }
        }
    }

    @Test func aBrokenPlistIsReportedWithItsPosition() throws {
        try withTemporaryFolder { folder in
            let path = try folder.create("environments/Debug.plist", Data("<plist><dict><key>Settings</key></dict></plist>".utf8))
            // The plist reader's own error comes through, with its position, not re-wrapped into a string.
            #expect(throws: PlistError(.malformed, "key 'Settings' has no value before </dict>", at: .line(1, column: 40), file: path)) {
                try EnvironmentStore(at: folder.path("environments"))
            }
        }
    }
}
