import Foundation
import Manifest
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// What the device list adds to a release's files: the enrollment link on the install page (and
/// nothing when there is none), and in `build.json` and the index how many listed devices a build reaches.
@Suite struct DeviceReachTests {
    static let enrollLine =
        "\n    <p class=\"hint\" id=\"enroll\">Not on the list? <a href=\"https://b.example/udid/?team=qa&amp;v=1\">Register this iPhone</a> "
        + "and ask the team for a new build.</p>"

    static func options() -> InstallPage.Options {
        var options = InstallPage.Options(baseURL: "https://b.example/QA/1.4.0-42/")
        options.environment = "QA"
        options.now = PlistDate(iso8601: "2026-02-01T10:00:00Z")!.date
        return options
    }

    /// With the URL the page has one more line, the link (escaped); without it the page is the page
    /// as it was, and `page.json` does not name it.
    @Test func theInstallPageLinksToTheEnrollmentPageOnlyWhenItsURLIsGiven() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let ipa = try InstallPageTests.hostileIPA(folder)
            var options = Self.options()
            _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("without"))
            options.enrollURL = "https://b.example/udid/?team=qa&v=1"
            _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("with"))
            let without = try String(contentsOfFile: folder.path("without/index.html"), encoding: .utf8)
            let with = try String(contentsOfFile: folder.path("with/index.html"), encoding: .utf8)
            #expect(with.contains(Self.enrollLine))
            #expect(with.replacingOccurrences(of: Self.enrollLine, with: "") == without)
            #expect(!without.contains("Register this iPhone"))
            let pageJSON = try String(contentsOfFile: folder.path("without/page.json"), encoding: .utf8)
            #expect(!pageJSON.contains("enroll"))
        }
    }

    @Test func buildJSONCarriesTheReachOnlyWhenGivenAndOldFilesStillLoad() throws {
        var info = BuildInfo()
        info.version = "1.4"
        info.devices = BuildInfo.DeviceReach(reached: 7, listed: 9)
        let data = try info.jsonData()
        #expect(String(decoding: data, as: UTF8.self).contains("\"devices\" : {\n    \"listed\" : 9,\n    \"reached\" : 7\n  }"))
        #expect(try BuildInfo(json: data) == info)
        #expect(try BuildInfo(json: Data(#"{"version": "1.4"}"#.utf8)).devices == nil)
        #expect(!String(decoding: try BuildInfo().jsonData(), as: UTF8.self).contains("devices"))
    }

    @Test func theIndexSaysHowManyListedDevicesEachBuildReaches() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            try folder.create(
                "dist/QA/1-1/build.json",
                Data(#"{"appName": "A", "version": "1", "build": "1", "environment": "QA", "date": "2026-01-01T10:00:00Z"}"#.utf8))
            try folder.create(
                "dist/QA/1-2/build.json",
                Data(
                    #"{"appName": "A", "version": "1", "build": "2", "environment": "QA", "date": "2026-01-02T10:00:00Z", "devices": {"reached": 7, "listed": 9}}"#
                        .utf8))
            try folder.create(
                "dist/QA/1-3/build.json",
                Data(
                    #"{"appName": "A", "version": "1", "build": "3", "environment": "QA", "date": "2026-01-03T10:00:00Z", "devices": {"reached": 1, "listed": 1}}"#
                        .utf8))
            let (releases, _) = try BuildIndex.releases(in: folder.path("dist"))
            let html = try BuildIndex.html(releases, title: "Builds", templates: try TemplateSet())
            #expect(html.contains("published 2026-01-02 10:00:00 UTC · reaches 7 of 9 listed devices</span>"))
            #expect(html.contains("published 2026-01-03 10:00:00 UTC · reaches 1 of 1 listed device</span>"))
            #expect(html.contains("published 2026-01-01 10:00:00 UTC</span>"))
            #expect(html.components(separatedBy: "listed device").count == 3)
        }
    }
}
