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
                report.changes.map { $0.line() } == [
                    "\(app)/Info.plist: updated CFBundleIdentifier, CFBundleDisplayName, Configuration",
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

    @Test func aSignedAppGetsAWarningThatItMustBeResigned() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder, signed: true)
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Debug")).apply(toApp: app)
            #expect(report.warnings == ["\(app) was signed; its signature is now invalid, so re-sign it before installing"])
        }
    }

    @Test func aDryRunReportsButWritesNothing() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let before = folder.snapshot()
            let report = try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("Release"), dryRun: true)
                .apply(toApp: app)
            #expect(
                report.changes.map { $0.line(dryRun: true) } == [
                    "\(app)/Info.plist: would be updated Configuration", "\(app)/environment.plist: would be created"
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
                throws: AdhocBuildError(
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
            #expect(throws: FileError.self) {
                try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(toApp: app)
            }
        }
    }

    @Test func aTargetThatIsAFolderFailsWithoutLeavingTemporaryFiles() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            try FileManager.default.createDirectory(atPath: app + "/environment.plist", withIntermediateDirectories: true)
            let before = folder.snapshot()
            #expect(throws: FileError("is a folder, not a file", file: app + "/environment.plist")) {
                try EnvironmentApplier(environment: try SampleEnvironments.resolver().resolve("QA")).apply(toApp: app)
            }
            // Neither file was written (the Info.plist is replaced only once both are ready) and no temporary file remains.
            #expect(folder.snapshot() == before)
        }
    }
}
