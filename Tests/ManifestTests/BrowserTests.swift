import Foundation
import IPAKit
import Manifest
import TestSupport
import Testing

/// The install page in a real browser: headless Chromium as an iPhone, an iPad in desktop mode,
/// a desktop and an in-app browser, with the network blocked. Screenshots go to `test-artifacts/`.
@Suite(.serialized) struct BrowserTests {
    @Test func thePageWorksOnEveryDeviceWithoutNetworkOrScriptErrors() throws {
        guard ProcessResult.which("chromium") != nil else {
            if Fixtures.isRequired { Issue.record("Chromium is required in CI (make deps installs it)") }
            return
        }
        let python = try #require(ProcessResult.which("python3"))
        guard try ProcessResult.run(python, ["-c", "import websocket"]).status == 0 else {
            Issue.record("the browser test needs websocket-client (make deps installs it)")
            return
        }
        try withTemporaryFolder { folder in
            let ipa = try InstallPageTests.hostileIPA(folder)
            var options = InstallPage.Options(baseURL: InstallPageTests.hostileBase)
            options.environment = "Staging"
            options.notes = "Faster timeline.\n\n- Reactions on shouts"
            let site = folder.path("site")
            let result = try InstallPage(options: options).write(ipa: ipa, to: site)
            let artifacts = Fixtures.packageRoot.appendingPathComponent("test-artifacts").path
            let run = try ProcessResult.run(
                python,
                [
                    Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/browser_check.py").path,
                    site + "/index.html", artifacts
                ])
            try #require(run.status == 0, "browser check failed: \(run.stderrText)")
            let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: [String: Any]])
            func state(_ device: String) throws -> [String: Any] { try #require(report[device]) }
            let pageFolder = "file://" + URL(fileURLWithPath: site).standardizedFileURL.path + "/"
            for device in ["iphone", "ipad-desktop-mode", "desktop", "in-app"] {
                let values = try state(device)
                #expect((values["errors"] as? [String]) == [], "\(device): JavaScript errors")
                let requests = values["requests"] as? [String] ?? ["?"]
                #expect(requests.allSatisfy { $0.hasPrefix(pageFolder) }, "\(device): requests left the page: \(requests)")
                #expect(values["qr"] as? Bool == true, "\(device): no QR code")
                #expect(values["installHref"] as? String == result.installURL, "\(device): the Install link is wrong")
            }
            #expect(try state("iphone")["device"] as? String == "iphone")
            #expect((try state("iphone")["visibleNotes"] as? [String]) == ["device-note for-iphone hint"])
            #expect(try state("ipad-desktop-mode")["device"] as? String == "ipad")
            #expect((try state("ipad-desktop-mode")["visibleNotes"] as? [String]) == ["device-note for-ipad hint"])
            #expect(try state("desktop")["device"] as? String == "desktop")
            #expect(try state("desktop")["desktopMessage"] as? Bool == true)
            #expect(try state("desktop")["qrBeforeDetails"] as? Bool == true)
            #expect(try state("in-app")["device"] as? String == "in-app")
            #expect(try state("in-app")["inAppMessage"] as? Bool == true)
            for device in ["iphone", "ipad-desktop-mode", "desktop", "in-app"] {
                #expect(FileManager.default.fileExists(atPath: "\(artifacts)/install-page-\(device).png"))
            }
            // An independent QR decoder (zbar) reads the page's own address off the screenshot.
            if let zbarimg = ProcessResult.which("zbarimg") {
                let decoded = try ProcessResult.run(zbarimg, ["--raw", "-q", "\(artifacts)/install-page-desktop.png"])
                #expect(decoded.stdoutText == result.pageURL + "\n")
            } else if Fixtures.isRequired {
                Issue.record("zbarimg (zbar-tools) is required in CI to decode the QR code")
            }
        }
    }
}
