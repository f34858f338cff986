import AssetCatalog
import Foundation
import IPAKit
import Manifest
import PlistKit
import TestSupport
import Testing

/// The install page in a real browser: headless Chromium as an iPhone, an iPad in desktop mode,
/// a desktop and an in-app browser, with the network blocked. Screenshots go to `test-artifacts/`.
@Suite(.serialized) struct BrowserTests {
    /// The python3 that runs `browser_check.py`, or nil (with an issue recorded where the browser
    /// is required) when Chromium or websocket-client is missing.
    static func browserCheckPython() throws -> String? {
        guard ProcessResult.which("chromium") != nil else {
            if Fixtures.isRequired { Issue.record("Chromium is required in CI (make deps installs it)") }
            return nil
        }
        let python = try #require(ProcessResult.which("python3"))
        guard try ProcessResult.run(python, ["-c", "import websocket"]).status == 0 else {
            Issue.record("the browser test needs websocket-client (make deps installs it)")
            return nil
        }
        return python
    }

    @Test func thePageWorksOnEveryDeviceWithoutNetworkOrScriptErrors() throws {
        guard let python = try Self.browserCheckPython() else { return }
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
            #expect((try state("iphone")["installMessages"] as? [String]) == ["device-note for-iphone hint"])
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

    /// Jenkins serves artifacts with a Content-Security-Policy that runs no script and applies no
    /// inline style. nginx serves the page with that header: Chromium as an iPhone and as a desktop
    /// then gets the page's own stylesheet, one install message (the one for every device) and a
    /// working Install link; the only thing refused is the script.
    @Test func thePageUnderJenkinsContentSecurityPolicyShowsOneInstallMessageWithItsStyles() throws {
        guard let python = try Self.browserCheckPython() else { return }
        guard
            let nginx = ProcessResult.which("nginx")
                ?? (FileManager.default.fileExists(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : nil)
        else {
            if Fixtures.isRequired { Issue.record("nginx is required in CI (make deps installs it)") }
            return
        }
        try withTemporaryFolder { folder in
            let port = try FreePort.find()
            // localhost: the browser check resolves no other name, and maps IP literals away too.
            let base = "http://localhost:\(port)/Staging/1.0-57/"
            var options = InstallPage.Options(baseURL: base)
            options.allowHTTP = true
            options.environment = "Staging"
            let result = try InstallPage(options: options).write(
                ipa: try InstallPageTests.hostileIPA(folder), to: folder.path("site/Staging/1.0-57"))
            let runtime = folder.path("nginx")
            let config = NginxServer.config(
                port: port, root: folder.path("site"), runtime: runtime,
                server: ["add_header Content-Security-Policy \"\(Self.jenkinsArtifactPolicy)\" always;"])
            let server = try NginxServer(executable: nginx, config: config, runtime: runtime, port: port)
            defer { server.stop() }
            let artifacts = Fixtures.packageRoot.appendingPathComponent("test-artifacts/jenkins-csp").path
            let run = try ProcessResult.run(
                python,
                [
                    Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/browser_check.py").path, base + "index.html", artifacts,
                    "iphone", "desktop"
                ])
            try #require(run.status == 0, "browser check failed: \(run.stderrText)")
            let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: [String: Any]])
            for device in ["iphone", "desktop"] {
                let values = try #require(report[device])
                #expect(values["device"] is NSNull, "\(device): the page's script ran despite the policy")
                #expect((values["installMessages"] as? [String]) == ["install-help"], "\(device): \(values["installMessages"] ?? "")")
                #expect(values["stylesheetApplied"] as? Bool == true, "\(device): the stylesheet beside the page did not apply")
                #expect(values["installHref"] as? String == result.installURL, "\(device): the Install link is wrong")
                #expect(values["qr"] as? Bool == true, "\(device): no QR code")
                let errors = (values["errors"] as? [String] ?? []).filter { !$0.contains("script") }
                #expect(errors == [], "\(device): the policy refused more than the script")
            }
        }
    }

    /// The header Jenkins puts on every artifact it serves (`hudson.model.DirectoryBrowserSupport.CSP`'s default).
    static let jenkinsArtifactPolicy = "sandbox; default-src 'none'; img-src 'self'; style-src 'self';"

    /// The Xcode 12.5 fixture keeps its icon only in Assets.car: the page shows that icon, as the
    /// browser draws it (its screenshot, cut to where the icon is), not the letter placeholder.
    @Test(Fixtures.enabled) func thePageShowsTheIconFromTheAssetCatalog() throws {
        guard let python = try Self.browserCheckPython() else { return }
        try withTemporaryFolder { folder in
            let ipa = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
            let site = folder.path("site")
            var options = InstallPage.Options(baseURL: "https://ci.example.com/test/")
            options.now = PlistDate(iso8601: "2021-06-01T00:00:00Z")!.date  // while the fixture's profile was valid
            let result = try InstallPage(options: options).write(ipa: ipa, to: site)
            #expect(result.warnings.isEmpty, "\(result.warnings)")
            let artifacts = Fixtures.packageRoot.appendingPathComponent("test-artifacts/catalog-icon").path
            let run = try ProcessResult.run(
                python,
                [
                    Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/browser_check.py").path, site + "/index.html", artifacts,
                    "desktop"
                ])
            try #require(run.status == 0, "browser check failed: \(run.stderrText)")
            let report = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: [String: Any]])
            let desktop = try #require(report["desktop"])
            #expect(desktop["placeholderIcon"] as? Bool == false)
            let icon = try #require(desktop["appIcon"] as? [String: Any], "the page has no icon image")
            #expect(icon["loaded"] as? Bool == true)
            #expect(icon["naturalWidth"] as? Int == 512)
            let (x, y) = (try #require(icon["x"] as? Double), try #require(icon["y"] as? Double))
            let size = try #require(icon["width"] as? Double)
            #expect(size == 88)
            // What the browser drew, against the icon decoded from the catalog (which the asset catalog
            // tests check against Apple's own LZFSE decoder), block by block over a 4 × 4 grid.
            let shot = try RGBAImage(pngData: try Data(contentsOf: URL(fileURLWithPath: artifacts + "/install-page-desktop.png")))
            let app = try AppPackage.open(ipa).app
            let decoded = try #require(AppIconLookup(bundle: app).icon)
            #expect(decoded.source == "Assets.car 'AppIcon' icon-1.png 180x180 @3x iphone, ARGB lzfse")
            let expected = ImageResizer.resize(decoded.image, to: 88)
            // The full-page screenshot may be laid out a few pixels off the probe's coordinates
            // (the scroll bar's width), so the icon is looked for near where the page says it is.
            var worst = Int.max
            for dy in -12...12 {
                for dx in -12...12 {
                    let origin = (Int(x.rounded()) + dx, Int(y.rounded()) + dy)
                    guard origin.0 >= 0, origin.1 >= 0, origin.0 + 88 <= shot.width, origin.1 + 88 <= shot.height else { continue }
                    worst = min(worst, Self.largestBlockDifference(shot, at: origin, expected))
                }
            }
            #expect(worst <= 12, "the drawn icon differs from the decoded one by \(worst) in a block's mean colour")
        }
    }

    /// The largest difference, over a 4 × 4 grid of blocks and the three colour channels, between
    /// the mean colour of `image` and of the same-sized region of `shot` at `origin` (both opaque).
    /// The corner blocks are left out: the page rounds the icon's corners.
    static func largestBlockDifference(_ shot: RGBAImage, at origin: (Int, Int), _ image: RGBAImage) -> Int {
        let block = image.width / 4
        var worst = 0
        for row in 0..<4 {
            for column in 0..<4 where !([0, 3].contains(row) && [0, 3].contains(column)) {
                var sums = [0, 0, 0, 0, 0, 0]
                for dy in (row * block + 2)..<((row + 1) * block - 2) {
                    for dx in (column * block + 2)..<((column + 1) * block - 2) {
                        let inImage = (dy * image.width + dx) * 4
                        let inShot = ((origin.1 + dy) * shot.width + origin.0 + dx) * 4
                        for channel in 0..<3 {
                            sums[channel] += Int(image.pixels[inImage + channel])
                            sums[3 + channel] += Int(shot.pixels[inShot + channel])
                        }
                    }
                }
                let count = (block - 4) * (block - 4)
                for channel in 0..<3 { worst = max(worst, abs(sums[channel] - sums[3 + channel]) / count) }
            }
        }
        return worst
    }
}
