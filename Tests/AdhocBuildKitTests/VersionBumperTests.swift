import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite struct VersionBumperTests {
    static let fastlaneProject = "fastlane_FastlaneTrainerExample_xcode16_objv77.pbxproj"
    static let isignProject = "isign_isignTestApp_xcode7_objv46.pbxproj"

    /// A temporary source tree holding a copy of a real project file (the fixture itself is never written).
    func tree(with fixture: String, _ folder: TemporaryFolder) throws -> String {
        try folder.create("App.xcodeproj/project.pbxproj", try Data(contentsOf: Fixtures.url("pbxproj", fixture)))
    }

    /// The byte ranges where two files differ.
    func differingLines(_ a: [UInt8], _ b: [UInt8]) -> [(String, String)] {
        let left = String(decoding: a, as: UTF8.self).components(separatedBy: "\n")
        let right = String(decoding: b, as: UTF8.self).components(separatedBy: "\n")
        guard left.count == right.count else { return [("line count", "\(left.count) vs \(right.count)")] }
        return zip(left, right).filter { $0 != $1 }
    }

    @Test(Fixtures.enabled) func bumpingARealXcode16ProjectChangesOnlyTheValueTokens() throws {
        try withTemporaryFolder { folder in
            let pbxproj = try tree(with: Self.fastlaneProject, folder)
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pbxproj)))
            let changes = try VersionBumper(target: .project(folder.url.path), field: .build).bump(.increment)
            #expect(changes.count == 8)
            #expect(Set(changes.map(\.newValue)) == ["2"])
            let bumped = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pbxproj)))
            let lines = differingLines(original, bumped)
            #expect(lines.count == 8)
            for (old, new) in lines {
                #expect(old == "\t\t\t\tCURRENT_PROJECT_VERSION = 1;")
                #expect(new == "\t\t\t\tCURRENT_PROJECT_VERSION = 2;")
            }
            try VersionBumper(target: .project(folder.url.path), field: .marketing).bump(.bump(.minor))
            let marketing = differingLines(bumped, [UInt8](try Data(contentsOf: URL(fileURLWithPath: pbxproj))))
            #expect(marketing.count == 8)
            #expect(marketing.allSatisfy { $0.0 == "\t\t\t\tMARKETING_VERSION = 1.0;" && $0.1 == "\t\t\t\tMARKETING_VERSION = 1.1;" })
            // Back to the original values: the file is byte for byte the fixture again.
            try VersionBumper(target: .project(folder.url.path), field: .build, allowDecrease: true).bump(.exactly("1"))
            try VersionBumper(target: .project(folder.url.path), field: .marketing, allowDecrease: true).bump(.exactly("1.0"))
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: pbxproj))) == original)
        }
    }

    /// Value ranges count in the text after a UTF-8 byte-order mark, so the edit lands on the
    /// value (it landed three bytes early and broke the file); a UTF-16 project is refused, as
    /// writing UTF-8 bytes into it would scramble it.
    @Test(Fixtures.enabled) func aProjectWithAByteOrderMarkIsEditedInPlaceAndAUTF16OneIsRefused() throws {
        try withTemporaryFolder { folder in
            let fixture = [UInt8](try Data(contentsOf: Fixtures.url("pbxproj", Self.fastlaneProject)))
            let pbxproj = try folder.create("App.xcodeproj/project.pbxproj", Data([0xEF, 0xBB, 0xBF] + fixture))
            try VersionBumper(target: .project(folder.url.path), field: .build).bump(.exactly("7"))
            let bumped = [UInt8](try Data(contentsOf: URL(fileURLWithPath: pbxproj)))
            #expect(bumped.starts(with: [0xEF, 0xBB, 0xBF]))
            let lines = differingLines(fixture, Array(bumped.dropFirst(3)))
            #expect(lines.count == 8)
            #expect(lines.allSatisfy { $0.0 == "\t\t\t\tCURRENT_PROJECT_VERSION = 1;" && $0.1 == "\t\t\t\tCURRENT_PROJECT_VERSION = 7;" })

            let utf16 = Data([0xFF, 0xFE] + String(decoding: fixture, as: UTF8.self).utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
            try utf16.write(to: URL(fileURLWithPath: pbxproj))
            #expect(
                throws: Diagnostic.build(
                    "is UTF-16 text, which adhocbuild reads but does not edit; save it as UTF-8 (as Xcode does)", file: pbxproj)
            ) {
                try VersionBumper(target: .project(folder.url.path), field: .build).bump(.exactly("8"))
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: pbxproj)) == utf16)
        }
    }

    @Test(Fixtures.enabled) func literalInfoPlistsOfAnXcode7ProjectAreBumpedAndTheProjectIsLeftAlone() throws {
        try withTemporaryFolder { folder in
            let pbxproj = try tree(with: Self.isignProject, folder)
            let original = try Data(contentsOf: URL(fileURLWithPath: pbxproj))
            for name in ["isignTestApp", "isignTestAppTests", "isignTestAppUITests"] {
                try folder.create(
                    "\(name)/Info.plist",
                    try PropertyList.encode(
                        ["CFBundleVersion": "7", "CFBundleShortVersionString": "1.0", "CFBundleIdentifier": "$(PRODUCT_BUNDLE_IDENTIFIER)"],
                        format: .xml))
            }
            let changes = try VersionBumper(target: .project(folder.url.path), field: .build).bump(.exactly("12"))
            #expect(
                changes.map(\.site.label)
                    == ["isignTestApp", "isignTestAppTests", "isignTestAppUITests"].map {
                        "\(folder.url.path)/\($0)/Info.plist: CFBundleVersion"
                    })
            #expect(try PropertyList(contentsOf: folder.path("isignTestAppTests/Info.plist")).value["CFBundleVersion"] == "12")
            #expect(try Data(contentsOf: URL(fileURLWithPath: pbxproj)) == original)
            let report = try VersionReport(project: folder.url.path)
            #expect(
                report.rows.first
                    == VersionReport.Row(
                        name: "isignTestApp (Debug)", bundleIdentifier: "com.saucelabs.isignTestApp",
                        marketingVersion: "1.0", buildNumber: "12",
                        source: folder.path("isignTestApp/Info.plist")))
        }
    }

    @Test(Fixtures.enabled) func missingInfoPlistsAreReportedTogetherAndNothingIsWritten() throws {
        try withTemporaryFolder { folder in
            _ = try tree(with: Self.isignProject, folder)
            let before = folder.snapshot()
            do {
                try VersionBumper(target: .project(folder.url.path), field: .build).bump(.increment)
                Issue.record("bumped without Info.plists")
            } catch let errors as Diagnostics {
                #expect(errors.items.count == 6)
                #expect(
                    errors.items.first?.description
                        == "\(folder.url.path)/isignTestApp/Info.plist: isignTestApp (Debug) builds from this Info.plist, which does not exist"
                )
            }
            #expect(folder.snapshot() == before)
        }
    }

    @Test(Fixtures.enabled) func aReferenceToASettingNoConfigurationSetsIsAnError() throws {
        try withTemporaryFolder { folder in
            _ = try tree(with: Self.isignProject, folder)
            for name in ["isignTestApp", "isignTestAppTests", "isignTestAppUITests"] {
                try folder.create(
                    "\(name)/Info.plist", try PropertyList.encode(["CFBundleVersion": "$(CURRENT_PROJECT_VERSION)"], format: .xml))
            }
            do {
                try VersionBumper(target: .project(folder.url.path), field: .build).bump(.exactly("3"))
                Issue.record("bumped a setting that does not exist")
            } catch let errors as Diagnostics {
                #expect(
                    errors.items.first?.description == "\(folder.url.path)/App.xcodeproj/project.pbxproj: isignTestApp (Debug) "
                        + "uses $(CURRENT_PROJECT_VERSION), which no build configuration sets")
            }
        }
    }

    func makeApp(_ folder: TemporaryFolder, appBuild: String = "41", extensionBuild: String = "41") throws -> String {
        try folder.create(
            "ShoutOut.app/Info.plist",
            try PropertyList.encode(
                ["CFBundleVersion": .string(appBuild), "CFBundleShortVersionString": "1.4"], format: .binary))
        try folder.create(
            "ShoutOut.app/PlugIns/Share.appex/Info.plist",
            try PropertyList.encode(
                ["CFBundleVersion": .string(extensionBuild), "CFBundleShortVersionString": "1.4"], format: .binary))
        return folder.path("ShoutOut.app")
    }

    @Test func anAppAndItsExtensionsGetTheSameBuildNumberKeepingBinary() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder, extensionBuild: "40")
            let changes = try VersionBumper(target: .app(app), field: .build).bump(.increment)
            #expect(
                changes.map(\.line) == [
                    "\(app)/Info.plist: CFBundleVersion: 41 -> 42",
                    "\(app)/PlugIns/Share.appex/Info.plist: CFBundleVersion: 40 -> 42"
                ])
            for plist in [app + "/Info.plist", app + "/PlugIns/Share.appex/Info.plist"] {
                let read = try PropertyList(contentsOf: plist)
                #expect(read.format == .binary && read.value["CFBundleVersion"] == "42")
            }
        }
    }

    @Test func theCIsCounterIsUsedInOrder() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            try VersionBumper(target: .app(app), field: .build).bump(.fromCI(["GITHUB_RUN_NUMBER": "77", "CI_PIPELINE_IID": "5"]))
            #expect(try PropertyList(contentsOf: app + "/Info.plist").value["CFBundleVersion"] == "77")
            #expect(
                throws: Diagnostic.build(
                    "--from-ci found no build counter: none of BUILD_NUMBER, GITHUB_RUN_NUMBER, CI_PIPELINE_IID is set")
            ) {
                try VersionBumper(target: .app(app), field: .build).bump(.fromCI([:]))
            }
        }
    }

    @Test func badNumbersAndGoingBackwardsAreRefusedWithoutWriting() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let before = folder.snapshot()
            let bumper = VersionBumper(target: .app(app), field: .build)
            #expect(
                throws: Diagnostic.build(
                    "'42a' is not a valid build number: it must be one to three period-separated non-negative integers (like 42 or 1.4.2)")
            ) {
                try bumper.bump(.exactly("42a"))
            }
            #expect(
                throws: Diagnostic.build(
                    "the build number would go backwards from 41 to 40; pass --allow-decrease if that is intended",
                    file: "\(app)/Info.plist: CFBundleVersion")
            ) {
                try bumper.bump(.exactly("40"))
            }
            #expect(
                throws: Diagnostic.build(
                    "'18446744073709551615' is not a valid build number: each of its numbers may have at most 18 digits")
            ) {
                try bumper.bump(.exactly("18446744073709551615"))
            }
            #expect(folder.snapshot() == before)
            try VersionBumper(target: .app(app), field: .build, allowDecrease: true).bump(.exactly("40"))
            #expect(try PropertyList(contentsOf: app + "/Info.plist").value["CFBundleVersion"] == "40")
        }
    }

    @Test func aNonNumericCurrentValueCannotBeIncrementedButCanBeReplaced() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder, appBuild: "41b")
            #expect(
                throws: Diagnostic.build(
                    "'41b' is not a valid build number: it must be one to three period-separated non-negative integers (like 42 or 1.4.2); give the new value with --to",
                    file: "\(app)/Info.plist: CFBundleVersion")
            ) {
                try VersionBumper(target: .app(app), field: .build).bump(.increment)
            }
            try VersionBumper(target: .app(app), field: .build).bump(.exactly("42"))
        }
    }

    @Test func aPlistThatRefersToABuildSettingPointsAtTheProject() throws {
        try withTemporaryFolder { folder in
            let plist = try folder.create(
                "Info.plist", try PropertyList.encode(["CFBundleVersion": "$(CURRENT_PROJECT_VERSION)"], format: .xml))
            do {
                try VersionBumper(target: .plist(plist), field: .build).bump(.increment)
                Issue.record("bumped a reference")
            } catch let errors as Diagnostics {
                #expect(
                    errors.description
                        == "\(plist): at 'CFBundleVersion': refers to '$(CURRENT_PROJECT_VERSION)'; change the project's build setting instead (--project)"
                )
            }
        }
    }

    @Test func aDryRunListsTheChangesAndWritesNothing() throws {
        try withTemporaryFolder { folder in
            let app = try makeApp(folder)
            let before = folder.snapshot()
            let changes = try VersionBumper(target: .app(app), field: .marketing, dryRun: true).bump(.bump(.major))
            #expect(changes.map(\.newValue) == ["2.0", "2.0"])
            #expect(folder.snapshot() == before)
        }
    }
}
