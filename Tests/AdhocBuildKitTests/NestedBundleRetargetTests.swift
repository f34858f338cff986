import AdhocBuildKit
import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// `env apply --app` with an environment that changes the bundle id: the extensions, the Watch app and
/// its extension, and the App Clip move under the new id (Staging: `com.example.shoutout` to
/// `com.example.shoutout.staging`).
@Suite struct NestedBundleRetargetTests {
    static let share = "ShoutOut.app/PlugIns/Share.appex/Info.plist"
    static let watch = "ShoutOut.app/Watch/ShoutOutWatch.app/Info.plist"
    static let watchExtension = "ShoutOut.app/Watch/ShoutOutWatch.app/PlugIns/WatchExtension.appex/Info.plist"
    static let clip = "ShoutOut.app/AppClips/Clip.app/Info.plist"

    /// An app with a share extension (XML), a Watch app (binary) with its extension (XML), and an App Clip (binary).
    func makeApp(_ folder: TemporaryFolder, shareID: String = "com.example.shoutout.share") throws -> String {
        try folder.create("ShoutOut.app/Info.plist", try PropertyList.encode(EnvironmentApplierTests.appInfo, format: .binary))
        try folder.create(Self.share, try PropertyList.encode(["CFBundleIdentifier": .string(shareID)], format: .xml))
        try folder.create(
            Self.watch,
            try PropertyList.encode(
                ["CFBundleIdentifier": "com.example.shoutout.watchkitapp", "WKCompanionAppBundleIdentifier": "com.example.shoutout"],
                format: .binary))
        try folder.create(
            Self.watchExtension,
            try PropertyList.encode(
                [
                    "CFBundleIdentifier": "com.example.shoutout.watchkitapp.watchkitextension",
                    "NSExtension": ["NSExtensionAttributes": ["WKAppBundleIdentifier": "com.example.shoutout.watchkitapp"]]
                ], format: .xml))
        try folder.create(Self.clip, try PropertyList.encode(["CFBundleIdentifier": "com.example.shoutout.Clip"], format: .binary))
        return folder.path("ShoutOut.app")
    }

    @Test func everyNestedBundleAndTheKeysNamingItsAppMoveUnderTheNewIdInTheirOwnFormat() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging")).apply(toApp: app)
            let lines = report.changes.flatMap { $0.lines() }
            #expect(
                Array(lines.dropFirst(4).dropLast()) == [
                    folder.path(Self.share) + ": updated",
                    "  CFBundleIdentifier: \"com.example.shoutout.share\" -> \"com.example.shoutout.staging.share\"",
                    folder.path(Self.watch) + ": updated",
                    "  CFBundleIdentifier: \"com.example.shoutout.watchkitapp\" -> \"com.example.shoutout.staging.watchkitapp\"",
                    "  WKCompanionAppBundleIdentifier: \"com.example.shoutout\" -> \"com.example.shoutout.staging\"",
                    folder.path(Self.watchExtension) + ": updated",
                    "  CFBundleIdentifier: \"com.example.shoutout.watchkitapp.watchkitextension\" -> "
                        + "\"com.example.shoutout.staging.watchkitapp.watchkitextension\"",
                    "  NSExtension:NSExtensionAttributes:WKAppBundleIdentifier: \"com.example.shoutout.watchkitapp\" -> "
                        + "\"com.example.shoutout.staging.watchkitapp\"",
                    folder.path(Self.clip) + ": updated",
                    "  CFBundleIdentifier: \"com.example.shoutout.Clip\" -> \"com.example.shoutout.staging.Clip\""
                ])
            let expected: [(String, PlistFormat, PlistKeyPath, PlistValue)] = [
                (Self.share, .xml, ["CFBundleIdentifier"], "com.example.shoutout.staging.share"),
                (Self.watch, .binary, ["CFBundleIdentifier"], "com.example.shoutout.staging.watchkitapp"),
                (Self.watch, .binary, ["WKCompanionAppBundleIdentifier"], "com.example.shoutout.staging"),
                (Self.watchExtension, .xml, ["CFBundleIdentifier"], "com.example.shoutout.staging.watchkitapp.watchkitextension"),
                (
                    Self.watchExtension, .xml, ["NSExtension", "NSExtensionAttributes", "WKAppBundleIdentifier"],
                    "com.example.shoutout.staging.watchkitapp"
                ),
                (Self.clip, .binary, ["CFBundleIdentifier"], "com.example.shoutout.staging.Clip")
            ]
            for (file, format, keyPath, value) in expected {
                let plist = try PropertyList(contentsOf: folder.path(file))
                #expect(plist.format == format, "\(file)")
                #expect(plist.value[keyPath] == value, "\(file) \(keyPath)")
            }
        }
    }

    @Test func aNestedIdUnderNeitherTheOldNorTheNewIdIsRefusedAndNothingIsWritten() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder, shareID: "com.other.share")
            let before = folder.snapshot()
            var expected = Diagnostic.build(
                "'com.other.share' is not under the app's bundle id 'com.example.shoutout', so it cannot follow it to "
                    + "'com.example.shoutout.staging'; iOS would refuse to install the app (AppexBundleIDNotPrefixed)",
                file: folder.path(Self.share), keyPath: "CFBundleIdentifier")
            expected.hint = "give the nested bundle an id that starts with 'com.example.shoutout.' or 'com.example.shoutout.staging.'"
            let error = #expect(throws: Diagnostics.self) {
                try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging")).apply(toApp: app)
            }
            #expect(error?.items == [expected])
            #expect(folder.snapshot() == before)
        }
    }

    @Test func aNestedIdAlreadyUnderTheNewIdIsLeftAsItIs() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder, shareID: "com.example.shoutout.staging.share")
            let share = try FileIO.read(folder.path(Self.share))
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging")).apply(toApp: app)
            #expect(!report.changes.map(\.path).contains(folder.path(Self.share)))
            #expect(try FileIO.read(folder.path(Self.share)) == share)
        }
    }

    @Test func aDryRunReportsTheNestedChangesAndWritesNothing() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let before = folder.snapshot()
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging"), dryRun: true)
                .apply(toApp: app)
            #expect(report.changes.flatMap { $0.lines(dryRun: true) }.contains(folder.path(Self.clip) + ": would be updated"))
            #expect(folder.snapshot() == before)
        }
    }

    @Test func anEnvironmentThatKeepsTheBundleIdLeavesNestedBundlesAlone() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder, shareID: "com.other.share")
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Release")).apply(toApp: app)
            #expect(report.changes.map(\.path) == [app + "/Info.plist", app + "/environment.plist"])
        }
    }
}

extension NestedBundleRetargetTests {
    /// What `release` checks before publishing an .ipa as it is: an extension left under the old id is a difference.
    @Test func aBuiltAppWhoseExtensionIsNotUnderTheEnvironmentsIdDiffersFromIt() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let applier = EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging"))
            _ = try applier.apply(toApp: app)
            #expect(try applier.differences(from: try AppPackage.open(app).app) == [])
            try folder.create(Self.share, try PropertyList.encode(["CFBundleIdentifier": "com.example.shoutout.share"], format: .xml))
            #expect(
                try applier.differences(from: try AppPackage.open(app).app) == [
                    "ShoutOut.app/PlugIns/Share.appex: CFBundleIdentifier is \"com.example.shoutout.share\", "
                        + "not under \"com.example.shoutout.staging\""
                ])
        }
    }
}
