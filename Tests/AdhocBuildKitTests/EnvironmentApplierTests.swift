import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct EnvironmentApplierTests {
    static let appInfo: PlistValue = [
        "CFBundleIdentifier": "com.example.shoutout", "CFBundleDisplayName": "ShoutOut",
        "CFBundleVersion": "41", "CFBundleExecutable": "ShoutOut"
    ]

    func makeApp(_ folder: TemporaryFolder, signed: Bool = false) throws -> String {
        try folder.create("ShoutOut.app/Info.plist", try PropertyList.encode(Self.appInfo, format: .binary))
        if signed { try folder.create("ShoutOut.app/_CodeSignature/CodeResources", Data("<plist/>".utf8)) }
        return folder.path("ShoutOut.app")
    }

    @Test func applyingToAnAppPatchesInfoKeepingBinaryAndWritesEnvironmentPlist() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let staging = try SampleEnvironments.resolver().resolve("Staging")
            let report = try EnvironmentApplier(environment: staging).apply(toApp: app)
            #expect(
                report.changes.flatMap { $0.lines() } == [
                    "\(app)/Info.plist: updated",
                    "  CFBundleIdentifier: \"com.example.shoutout\" -> \"com.example.shoutout.staging\"",
                    "  CFBundleDisplayName: \"ShoutOut\" -> \"ShoutOut β\"",
                    "  Configuration: (none) -> \"Staging\"",
                    "\(app)/environment.plist: created"
                ])
            #expect(report.warnings == [])
            let info = try PropertyList(contentsOf: app + "/Info.plist")
            #expect(info.format == .binary)
            #expect(info.value["CFBundleIdentifier"] == "com.example.shoutout.staging")
            #expect(info.value["CFBundleVersion"] == "41")
            let settings = try PropertyList(contentsOf: app + "/environment.plist")
            #expect(settings.format == .binary)
            #expect(settings.value == .dictionary(staging.settings))
        }
    }

    @Test func applyingTwiceChangesNothingTheSecondTime() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let staging = try SampleEnvironments.resolver().resolve("Staging")
            _ = try EnvironmentApplier(environment: staging).apply(toApp: app)
            let before = folder.snapshot()
            let again = try EnvironmentApplier(environment: staging).apply(toApp: app)
            #expect(again.changes.map(\.action) == [.unchanged, .unchanged])
            #expect(folder.snapshot() == before)
        }
    }

    /// A `_CodeSignature` folder beside an executable that carries no signature is not a signed app:
    /// applying goes on without a warning (a signed one is refused: SignedAppChangeTests).
    @Test func aCodeSignatureFolderAloneDoesNotMakeAnAppSigned() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder, signed: true)
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Debug")).apply(toApp: app)
            #expect(report.warnings == [])
        }
    }

    @Test func aDryRunReportsButWritesNothing() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let before = folder.snapshot()
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Release"), dryRun: true)
                .apply(toApp: app)
            #expect(
                report.changes.flatMap { $0.lines(dryRun: true) } == [
                    "\(app)/Info.plist: would be updated", "  Configuration: (none) -> \"Release\"",
                    "\(app)/environment.plist: would be created"
                ])
            #expect(folder.snapshot() == before)
        }
    }

    @Test func applyingToASourceTreeFindsTheInfoPlistAndWritesXMLBesideIt() throws {
        try withTemporaryFolder { folder in
            try folder.create("ShoutOut/Info.plist", try PropertyList.encode(Self.appInfo, format: .xml))
            try folder.create("ShoutOutTests/Info.plist", try PropertyList.encode(Self.appInfo, format: .xml))
            try folder.create("build/Debug-iphoneos/ShoutOut.app/Info.plist", try PropertyList.encode(Self.appInfo, format: .binary))
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(
                toProject: folder.url.path)
            #expect(report.changes.map(\.path) == [folder.path("ShoutOut/Info.plist"), folder.path("ShoutOut/environment.plist")])
            let settings = try PropertyList(contentsOf: folder.path("ShoutOut/environment.plist"))
            #expect(settings.format == .xml)
            #expect(try PropertyList(contentsOf: folder.path("ShoutOut/Info.plist")).value["CFBundleDisplayName"] == "ShoutOut QA")
        }
    }

    @Test func severalInfoPlistsNeedAChoiceAndNothingIsWritten() throws {
        try withTemporaryFolder { folder in
            try folder.create("App/Info.plist", try PropertyList.encode(Self.appInfo, format: .xml))
            try folder.create("Widget/Info.plist", try PropertyList.encode(Self.appInfo, format: .xml))
            let before = folder.snapshot()
            #expect(
                throws: Diagnostic.build(
                    "has 2 Info.plist files (App/Info.plist, Widget/Info.plist); choose one with --info-plist",
                    file: folder.url.path)
            ) {
                try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(toProject: folder.url.path)
            }
            #expect(folder.snapshot() == before)
        }
    }

    @Test func anUnwritableInfoPlistFailsCleanly() throws {
        guard getuid() != 0 else { return }  // root writes anywhere; the folder check below covers root
        try withTemporaryFolder { folder in
            defer { chmod(folder.path("ShoutOut.app"), 0o755) }
            let app = try makeApp(folder)
            chmod(app, 0o555)
            expectDiagnostic(FileProblem.self) {
                try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(toApp: app)
            }
        }
    }

    @Test func aTargetThatIsAFolderFailsWithoutLeavingTemporaryFiles() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            try FileManager.default.createDirectory(atPath: app + "/environment.plist", withIntermediateDirectories: true)
            let before = folder.snapshot()
            #expect(throws: Diagnostic.io("is a folder, not a file", file: app + "/environment.plist")) {
                try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(toApp: app)
            }
            // Neither file was written (the Info.plist is replaced only once both are ready) and no temporary file remains.
            #expect(folder.snapshot() == before)
        }
    }

    /// A dry run over an existing environment.plist names each value with its old and new value.
    @Test func aDryRunShowsEachChangedValueWithItsOldAndNewValue() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            _ = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging")).apply(toApp: app)
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Release"), dryRun: true)
                .apply(toApp: app)
            let lines = report.changes.flatMap { $0.lines(dryRun: true) }
            #expect(lines.contains("  CFBundleIdentifier: \"com.example.shoutout.staging\" -> \"com.example.shoutout\""), "\(lines)")
            #expect(lines.contains("\(app)/environment.plist: would be updated"), "\(lines)")
            #expect(lines.contains("  LogLevel: \"info\" -> \"error\""), "\(lines)")
        }
    }
}

/// `env apply --project` on a source tree whose Info.plist refers to build settings: the reference
/// stays and the setting changes in project.pbxproj, so extensions keep deriving from the app.
@Suite struct EnvironmentApplierProjectTests {
    /// A copy of the example project (`examples/ShoutOut`) in `folder`.
    func exampleProject(_ folder: TemporaryFolder) throws -> String {
        let target = folder.url.appendingPathComponent("ShoutOut")
        try FileManager.default.copyItem(at: Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut"), to: target)
        return target.path
    }

    func pbxprojLines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
    }

    @Test func theBundleIdIsSetInTheProjectAndTheExtensionMovesWithIt() throws {
        try withTemporaryFolder { folder in
            let project = try exampleProject(folder)
            let pbxproj = project + "/ShoutOut.xcodeproj/project.pbxproj"
            let before = try pbxprojLines(pbxproj)
            let infoBefore = try PropertyList(contentsOf: project + "/ShoutOut/Info.plist").value
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(toProject: project)
            // The app's Info.plist is found among the app's and the extension's through the project.
            #expect(report.changes.map(\.path) == [project + "/ShoutOut/Info.plist", pbxproj, project + "/ShoutOut/environment.plist"])
            let info = try PropertyList(contentsOf: project + "/ShoutOut/Info.plist").value
            #expect(info["CFBundleIdentifier"] == "$(PRODUCT_BUNDLE_IDENTIFIER)")
            #expect(info["CFBundleDisplayName"] == "ShoutOut QA")
            #expect(info["Configuration"] == infoBefore["Configuration"])
            #expect(
                report.warnings.map(\.description).contains {
                    $0.hasPrefix("\(project)/ShoutOut/Info.plist: Configuration left as $(CONFIGURATION) (the environment gives 'QA'): ")
                }, "\(report.warnings)")
            // Only the four value tokens changed; every other line is as it was.
            let after = try pbxprojLines(pbxproj)
            #expect(after.count == before.count)
            let changed = zip(before, after).filter { $0 != $1 }
            #expect(
                changed.map(\.1.trimmed) == [
                    "PRODUCT_BUNDLE_IDENTIFIER = com.example.shoutout.qa;", "PRODUCT_BUNDLE_IDENTIFIER = com.example.shoutout.qa;",
                    "PRODUCT_BUNDLE_IDENTIFIER = com.example.shoutout.qa.share;",
                    "PRODUCT_BUNDLE_IDENTIFIER = com.example.shoutout.qa.share;"
                ])
            // Applied again: nothing to write. Applied back to Release: the project file is as it was.
            let again = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(toProject: project)
            #expect(again.changes.map(\.action) == [.unchanged, .unchanged, .unchanged])
            _ = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Release")).apply(toProject: project)
            #expect(try pbxprojLines(pbxproj) == before)
        }
    }

    @Test func aDryRunNamesEachBuildSettingWithItsOldAndNewValueAndWritesNothing() throws {
        try withTemporaryFolder { folder in
            let project = try exampleProject(folder)
            let before = folder.snapshot()
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging"), dryRun: true)
                .apply(toProject: project)
            #expect(
                report.changes[1].lines(dryRun: true) == [
                    "\(project)/ShoutOut.xcodeproj/project.pbxproj: would be updated",
                    "  ShoutOut (Debug) PRODUCT_BUNDLE_IDENTIFIER: \"com.example.shoutout\" -> \"com.example.shoutout.staging\"",
                    "  ShareExtension (Debug) PRODUCT_BUNDLE_IDENTIFIER: \"com.example.shoutout.share\" -> \"com.example.shoutout.staging.share\"",
                    "  ShoutOut (Release) PRODUCT_BUNDLE_IDENTIFIER: \"com.example.shoutout\" -> \"com.example.shoutout.staging\"",
                    "  ShareExtension (Release) PRODUCT_BUNDLE_IDENTIFIER: \"com.example.shoutout.share\" -> \"com.example.shoutout.staging.share\""
                ])
            #expect(folder.snapshot() == before)
        }
    }

    /// Without a project to set it in, the reference is left as it was, and a warning says so.
    @Test func withoutAProjectTheReferenceIsLeftAndAWarningSaysWhy() throws {
        try withTemporaryFolder { folder in
            let info: PlistValue = ["CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)", "CFBundleDisplayName": "ShoutOut"]
            try folder.create("App/Info.plist", try PropertyList.encode(info, format: .xml))
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging"))
                .apply(toProject: folder.url.path)
            let written = try PropertyList(contentsOf: folder.path("App/Info.plist")).value
            #expect(written["CFBundleIdentifier"] == "$(PRODUCT_BUNDLE_IDENTIFIER)")
            #expect(written["CFBundleDisplayName"] == "ShoutOut β")
            #expect(
                report.warnings.first?.description
                    == "\(folder.path("App/Info.plist")): CFBundleIdentifier left as $(PRODUCT_BUNDLE_IDENTIFIER) "
                    + "(the environment gives 'com.example.shoutout.staging'): \(folder.url.path): holds no .xcodeproj; "
                    + "set PRODUCT_BUNDLE_IDENTIFIER in the project yourself")
        }
    }
}

/// The same on real project files made by Xcode 7 and Xcode 16.
@Suite(Fixtures.enabled) struct EnvironmentApplierRealProjectTests {
    @Test func xcode7sAppBundleIdIsSetAndItsTestTargetsAreLeftAlone() throws {
        let source = Fixtures.url("pbxproj", "isign_isignTestApp_xcode7_objv46.pbxproj")
        guard FileManager.default.fileExists(atPath: source.path) else {
            _ = Fixtures.files(in: "pbxproj")
            return
        }
        try withTemporaryFolder { folder in
            let pbxproj = try folder.create("isignTestApp.xcodeproj/project.pbxproj", try Data(contentsOf: source))
            let info: PlistValue = ["CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)", "CFBundleName": "$(PRODUCT_NAME)"]
            try folder.create("isignTestApp/Info.plist", try PropertyList.encode(info, format: .xml))
            let environments = try folder.environments([
                "Staging": ["Info": ["CFBundleIdentifier": "com.saucelabs.isignTestApp.staging", "CFBundleName": "Staging"]]
            ])
            let resolver = EnvironmentResolver(
                store: try EnvironmentStore(at: environments), overrides: [], settings: [:], processEnvironment: [:])
            let before = try String(contentsOfFile: pbxproj, encoding: .utf8)
            let report = try EnvironmentApplier(environment: try resolver.resolve("Staging")).apply(toProject: folder.url.path)
            let after = try String(contentsOfFile: pbxproj, encoding: .utf8)
            // Exactly the app target's two configurations change: the test targets' ids
            // (com.saucelabs.isignTestAppTests) do not start with the app's id and a '.'.
            #expect(
                before.replacingOccurrences(
                    of: "PRODUCT_BUNDLE_IDENTIFIER = com.saucelabs.isignTestApp;",
                    with: "PRODUCT_BUNDLE_IDENTIFIER = com.saucelabs.isignTestApp.staging;") == after)
            #expect(before.components(separatedBy: "PRODUCT_BUNDLE_IDENTIFIER = com.saucelabs.isignTestApp;").count == 3)
            // PRODUCT_NAME names the executable: it is left, with its reference, and the warning says why.
            let written = try PropertyList(contentsOf: folder.path("isignTestApp/Info.plist")).value
            #expect(written == info)
            #expect(
                report.warnings.map(\.description).contains { $0.contains("CFBundleName left as $(PRODUCT_NAME)") }, "\(report.warnings)")
        }
    }

    @Test func xcode16sGeneratedInfoPlistIsNotBuiltFromTheFileSoTheReferenceIsLeft() throws {
        let source = Fixtures.url("pbxproj", "fastlane_FastlaneTrainerExample_xcode16_objv77.pbxproj")
        guard FileManager.default.fileExists(atPath: source.path) else {
            _ = Fixtures.files(in: "pbxproj")
            return
        }
        try withTemporaryFolder { folder in
            let pbxproj = try folder.create("FastlaneTrainerExample.xcodeproj/project.pbxproj", try Data(contentsOf: source))
            let before = try Data(contentsOf: URL(fileURLWithPath: pbxproj))
            try folder.create(
                "Extra/Info.plist", try PropertyList.encode(["CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)"], format: .xml))
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Staging"))
                .apply(toProject: folder.url.path)
            #expect(try Data(contentsOf: URL(fileURLWithPath: pbxproj)) == before)
            #expect(
                report.warnings.map(\.description).contains {
                    $0.contains("CFBundleIdentifier left as $(PRODUCT_BUNDLE_IDENTIFIER)")
                        && $0.hasSuffix("no target of \(pbxproj) builds from this Info.plist")
                }, "\(report.warnings)")
        }
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespaces) }
}
