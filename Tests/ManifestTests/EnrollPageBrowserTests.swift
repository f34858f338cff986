import Foundation
import Manifest
import TestSupport
import Testing

/// The enrollment page and its thank-you page in headless Chromium with the network blocked: an iPhone
/// sees the Install profile button and no QR code, a desktop the QR code (decoded by zbar to the page's
/// address) and no button; no script errors, no request leaving the folder; the thank-you page shows a
/// hostile name from its query as text. Screenshots go to `test-artifacts/enroll/`.
@Suite(.serialized) struct EnrollPageBrowserTests {
    static let pageURL = "https://builds.example.com/udid/"

    /// The pages written into `folder`/site.
    static func writeSite(_ folder: TemporaryFolder, signed: Bool = true) throws -> String {
        let site = folder.path("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        let content = EnrollPage.Content(
            pageURL: pageURL, profileName: "enroll.mobileconfig", profileTitle: "Register this device with <Shout & Co>",
            host: "builds.example.com", organization: "<Shout & Co>", signed: signed)
        for (name, data) in try EnrollPage.files(content, templates: try TemplateSet()) {
            _ = try folder.write("site/" + name, data)
        }
        _ = try folder.write("site/enroll.mobileconfig", "<plist/>")
        return site
    }

    static func check(_ python: String, _ target: String, prefix: String, devices: [String]) throws -> [String: [String: Any]] {
        let artifacts = Fixtures.packageRoot.appendingPathComponent("test-artifacts/enroll").path
        let run = try ProcessResult.run(
            python,
            [
                Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/browser_check.py").path, "--shot-prefix=\(prefix)", target,
                artifacts
            ]
                + devices)
        try #require(run.status == 0, "browser check failed: \(run.stderrText)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: [String: Any]])
    }

    @Test func anIPhoneSeesTheInstallButtonAndADesktopTheQRCode() throws {
        guard let python = try BrowserTests.browserCheckPython() else { return }
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let site = try Self.writeSite(folder)
            let report = try Self.check(python, site + "/index.html", prefix: "enroll-page", devices: ["iphone", "desktop", "in-app"])
            let siteURL = "file://" + URL(fileURLWithPath: site).standardizedFileURL.path + "/"
            for (device, values) in report {
                #expect((values["errors"] as? [String]) == [], "\(device): JavaScript errors")
                let requests = values["requests"] as? [String] ?? ["?"]
                #expect(requests.allSatisfy { $0.hasPrefix(siteURL) }, "\(device): requests left the folder: \(requests)")
                #expect(values["installHref"] as? String == "enroll.mobileconfig")
                #expect(values["stylesheetApplied"] as? Bool == true || device != "iphone")
            }
            let iphone = try #require(report["iphone"])
            #expect(iphone["device"] as? String == "iphone")
            #expect(iphone["installVisible"] as? Bool == true)
            #expect(iphone["qrVisible"] as? Bool == false)
            #expect((iphone["visibleNotes"] as? [String]) == ["device-note for-iphone hint"])
            let desktop = try #require(report["desktop"])
            #expect(desktop["device"] as? String == "desktop")
            #expect(desktop["installVisible"] as? Bool == false)
            #expect(desktop["qrVisible"] as? Bool == true)
            #expect(desktop["desktopMessage"] as? Bool == true)
            let inApp = try #require(report["in-app"])
            #expect(inApp["installVisible"] as? Bool == false)
            #expect(inApp["inAppMessage"] as? Bool == true)
            #expect((iphone["title"] as? String) == "Register your iPhone or iPad – <Shout & Co>")
            let artifacts = Fixtures.packageRoot.appendingPathComponent("test-artifacts/enroll").path
            if let zbarimg = ProcessResult.which("zbarimg") {
                let decoded = try ProcessResult.run(zbarimg, ["--raw", "-q", "\(artifacts)/enroll-page-desktop.png"])
                #expect(decoded.stdoutText == Self.pageURL + "\n")
            } else if Fixtures.isRequired {
                Issue.record("zbarimg (zbar-tools) is required in CI to decode the QR code")
            }
        }
    }

    @Test func theThankYouPageShowsTheDeviceFromItsQueryAsText() throws {
        guard let python = try BrowserTests.browserCheckPython() else { return }
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let site = try Self.writeSite(folder)
            let query =
                "name=%3Cb%3EAna%3C%2Fb%3E%20%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&model=iPhone15%2C2&udid=00008120-001A2B3C4D5E6F70"
            let target = "file://" + URL(fileURLWithPath: site).standardizedFileURL.path + "/thanks.html?" + query
            let report = try Self.check(python, target, prefix: "thanks-page", devices: ["iphone"])
            let iphone = try #require(report["iphone"])
            #expect((iphone["errors"] as? [String]) == [])
            let fields = try #require(iphone["fields"] as? [String: String])
            #expect(
                fields == ["name": "<b>Ana</b> <img src=x onerror=alert(1)>", "model": "iPhone15,2", "udid": "00008120-001A2B3C4D5E6F70"])
            #expect(iphone["fieldElements"] as? Int == 0, "the name became HTML elements")
            #expect(iphone["factsVisible"] as? Bool == true)
            let requests = iphone["requests"] as? [String] ?? ["?"]
            #expect(requests.allSatisfy { $0.hasPrefix("file://") && !$0.contains("/x") }, "\(requests)")
        }
    }

    @Test func theThankYouPageWithoutAQueryShowsNoDeviceFacts() throws {
        guard let python = try BrowserTests.browserCheckPython() else { return }
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let site = try Self.writeSite(folder)
            let report = try Self.check(python, site + "/thanks.html", prefix: "thanks-page-bare", devices: ["desktop"])
            let desktop = try #require(report["desktop"])
            #expect((desktop["errors"] as? [String]) == [])
            #expect(desktop["factsVisible"] as? Bool == false)
        }
    }
}
