import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

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
        #expect(throws: Diagnostic.build("no environment 'Stagin'; did you mean 'Staging'?", file: SampleEnvironments.path)) {
            try store.environment(named: "Stagin")
        }
        #expect(
            throws: Diagnostic.build(
                "no environment 'Production'; there are Debug, QA, Release, Staging",
                file: SampleEnvironments.path)
        ) {
            try store.environment(named: "Production")
        }
        // Base is the layer under every environment: said so, not "did you mean 'QA'?".
        #expect(
            throws: Diagnostic.build(
                "'Base' is the layer every environment is built on, not an environment of its own; "
                    + "there are Debug, QA, Release, Staging", file: SampleEnvironments.path + "/Base.plist")
        ) {
            try store.environment(named: "Base")
        }
        // A one-letter slip in Base's name is told the same; any other short name is not ("Nope"
        // was three letters from Base, and got the sentence about Base).
        expectDiagnostic(BuildProblem.self) { try store.environment(named: "Bse") }
        do { _ = try store.environment(named: "Bse") } catch let error as Diagnostic where error.is(BuildProblem.self) {
            #expect(error.message.hasPrefix("no environment 'Bse'; 'Base' is the layer every environment is built on"))
        }
        #expect(
            throws: Diagnostic.build("no environment 'Nope'; there are Debug, QA, Release, Staging", file: SampleEnvironments.path)
        ) {
            try store.environment(named: "Nope")
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

    @Test func collectsSchemaMistakesNamingFileAndKeyPathAndResolvingReportsThem() throws {
        try withTemporaryFolder { folder in
            let environments = try folder.environments([
                "Base": ["Inherits": "Debug"],
                "Debug": [
                    "Setings": ["a": 1], "Settings": ["b": 2], "Info": "flat", "Variables": ["N": 1, "M": "m"], "Inherits": 3,
                    "Distribution": ["Titel": "x"]
                ]
            ])
            // Reading goes on past each mistake, leaving out the part at fault, so env check can report them all.
            let store = try EnvironmentStore(at: environments)
            let debug = environments + "/Debug.plist"
            let expected = [
                Diagnostic.build("Base.plist cannot inherit (it names 'Debug')", file: environments + "/Base.plist", keyPath: "Inherits"),
                Diagnostic.build("unknown key 'Setings'; did you mean 'Settings'?", file: debug, keyPath: "Setings"),
                Diagnostic.build("Inherits must name an environment (a string), not an integer", file: debug, keyPath: "Inherits"),
                Diagnostic.build("Info must be a dictionary, not a string", file: debug, keyPath: "Info"),
                Diagnostic.build("unknown Distribution key 'Titel'; did you mean 'Title'?", file: debug, keyPath: "Distribution:Titel"),
                Diagnostic.build("a variable must be a string, not an integer", file: debug, keyPath: "Variables:N")
            ]
            #expect((store.base?.problems ?? []) + store.environments[0].problems == expected)
            let body = store.environments[0].body
            #expect(body.keys.sorted() == ["Distribution", "Settings", "Variables"])
            #expect(body["Settings"] == ["b": 2] && body["Variables"] == ["M": "m"] && body["Distribution"] == [:])
            do {
                _ = try EnvironmentResolver(store: store).resolveForApplying("Debug")
                Issue.record("resolved an environment with schema mistakes")
            } catch let errors as Diagnostics {
                #expect(errors.items == expected)
            }
            #expect(throws: expected[0]) { try EnvironmentResolver(store: store).resolve("Debug") }
            #expect(
                throws: Diagnostic.build(
                    "no environments here (expected a folder of environment plists or an Environments.plist)",
                    file: folder.path("missing"))
            ) {
                try EnvironmentStore(at: folder.path("missing"))
            }
        }
    }

    @Test func aBrokenPlistIsCollectedWithItsPositionAndReportedByWhatUsesIt() throws {
        try withTemporaryFolder { folder in
            let path = try folder.create("environments/Debug.plist", Data("<plist><dict><key>Settings</key></dict></plist>".utf8))
            _ = try folder.create("environments/Release.plist", Data("<plist><dict/></plist>".utf8))
            let store = try EnvironmentStore(at: folder.path("environments"))
            let debug = try store.environment(named: "Debug")
            // The plist reader's file, position and message are kept, not flattened into one string.
            #expect(debug.problems.map(\.location) == ["1:40"])
            #expect(debug.problems.map(\.description) == ["\(path): 1:40: key 'Settings' has no value before </dict>"])
            #expect(!debug.wasRead)
            expectDiagnostic(PlistProblem.self) { try EnvironmentResolver(store: store).resolve("Debug") }
            #expect(try EnvironmentResolver(store: store).resolve("Release").name == "Release")
        }
    }
}
