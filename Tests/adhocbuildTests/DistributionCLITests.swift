import Foundation
import TestSupport
import Testing

/// `manifest`, `page` and `index` as a CI step runs them.
@Suite(Fixtures.enabled) struct DistributionCLITests {
    /// An app whose icon lives only in Assets.car gets that icon on its page and in its manifest,
    /// with no warning; `--icon` still wins; a file that is not a PNG is an error naming it.
    @Test func pageTakesTheIconFromTheAssetCatalogUnlessOneIsGiven() throws {
        try withTemporaryFolder { folder in
            let ipa = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
            let arguments = ["page", ipa, "--base-url", "https://builds.example.com/test/", "--allow-expired"]
            let fromCatalog = try AdhocBuildBinary.run(arguments + ["-o", folder.path("catalog")])
            #expect(fromCatalog.status == 0, "\(fromCatalog.stderrText)")
            #expect(!fromCatalog.stderrText.contains("icon"), "\(fromCatalog.stderrText)")
            let icon = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app/AppIcon60x60@3x.png").path
            let with = try AdhocBuildBinary.run(arguments + ["-o", folder.path("with"), "--icon", icon])
            #expect(with.status == 0, "\(with.stderrText)")
            #expect(!with.stderrText.contains("no icon"), "\(with.stderrText)")
            for file in ["icon-57.png", "icon-512.png"] {
                let catalogIcon = try Data(contentsOf: URL(fileURLWithPath: folder.path("catalog/\(file)")))
                let givenIcon = try Data(contentsOf: URL(fileURLWithPath: folder.path("with/\(file)")))
                #expect(catalogIcon.starts(with: [0x89, 0x50, 0x4E, 0x47]) && catalogIcon != givenIcon, "\(file)")
            }
            for site in ["catalog", "with"] {
                #expect(try String(contentsOfFile: folder.path("\(site)/manifest.plist"), encoding: .utf8).contains("display-image"))
            }
            let notPNG = try folder.write("icon.txt", "not a picture")
            let bad = try AdhocBuildBinary.run(arguments + ["-o", folder.path("bad"), "--icon", notPNG])
            #expect(bad.status == 1)
            #expect(bad.stderrText.hasPrefix("error: \(notPNG): is not a readable PNG"), "\(bad.stderrText)")
        }
    }

    /// `manifest` of an app folder exits 1 naming it, as `page` does; it wrote `…/Test.app` as the
    /// package URL and exited 0.
    @Test func manifestAndPageRefuseAnAppFolder() throws {
        try withTemporaryFolder { folder in
            let info =
                #"<plist><dict><key>CFBundleIdentifier</key><string>com.example.a</string><key>CFBundleShortVersionString</key><string>1.0</string></dict></plist>"#
            _ = try folder.create("Test.app/Info.plist", Data(info.utf8))
            let app = folder.path("Test.app")
            let expected = "error: \(app): is a folder, not an .ipa; package it first (adhocbuild package)\n"
            for command in ["manifest", "page"] {
                let result = try AdhocBuildBinary.run([command, app, "--base-url", "https://b.example/x/", "-o", folder.path("out")])
                #expect(result.status == 1, "\(command)")
                #expect(result.stderrText == expected, "\(command)")
                #expect(!FileManager.default.fileExists(atPath: folder.path("out")), "\(command)")
            }
        }
    }

    /// A build whose profile has expired gets no page unless `--allow-expired`, and then a warning: it
    /// exited 0 without a word while the page said "cannot be installed".
    @Test func pageOfAnExpiredProfileIsAnErrorUnlessAllowed() throws {
        try withTemporaryFolder { folder in
            let ipa = Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path
            let arguments = ["page", ipa, "--base-url", "https://builds.example.com/test/", "-o", folder.path("site")]
            let problem =
                "\(ipa): its provisioning profile \"iOS Team Provisioning Profile: com.ineva.test-rtmp.Test\" expired on 2022-05-09 06:59 UTC, "
                + "so iOS will not install it and the page says it cannot be installed"
            let refused = try AdhocBuildBinary.run(arguments)
            #expect(refused.status == 1)
            #expect(
                refused.stderrText
                    == "error: \(problem); publish a build with a current profile, or pass --allow-expired to write the page anyway\n")
            #expect(!FileManager.default.fileExists(atPath: folder.path("site")))
            let allowed = try AdhocBuildBinary.run(arguments + ["--allow-expired"])
            #expect(allowed.status == 0, "\(allowed.stderrText)")
            #expect(allowed.stderrText == "warning: \(problem) (going on: --allow-expired)\n")
            #expect(try String(contentsOfFile: folder.path("site/index.html"), encoding: .utf8).contains("cannot be installed"))
        }
    }

    @Test func pageThenIndexThenManifest() throws {
        try withTemporaryFolder { folder in
            let ipa = Fixtures.url("ipa", "app_info_ipad_appstore-cgbi-icons.ipa").path
            let notes = try folder.write("notes.txt", "First build.\n- icons")
            let page = try AdhocBuildBinary.run([
                "page", ipa, "--base-url", "https://builds.example.com/ipad/1.0-1/", "-o",
                folder.path("dist/Staging/1.0-1"), "--environment", "Staging", "--notes", notes,
                "--branch", "main", "--commit", "abc123", "--allow-expired"
            ])
            #expect(page.status == 0, "\(page.stderrText)")
            #expect(
                page.stdoutText.contains(
                    "install: itms-services://?action=download-manifest&url=https%3A%2F%2Fbuilds.example.com%2Fipad%2F1.0-1%2Fmanifest.plist\n"
                ))
            for file in [
                "index.html", "manifest.plist", "icon-57.png", "icon-512.png", "version.json", "build.json",
                "app_info_ipad_appstore-cgbi-icons.ipa"
            ] {
                #expect(FileManager.default.fileExists(atPath: folder.path("dist/Staging/1.0-1/\(file)")), "\(file)")
            }
            let index = try AdhocBuildBinary.run(["index", folder.path("dist"), "--title", "iPad builds"])
            #expect(index.stdoutText == "\(folder.path("dist"))/index.html: 1 release\n")
            #expect(try String(contentsOfFile: folder.path("dist/index.html"), encoding: .utf8).contains("<title>iPad builds</title>"))
            let manifest = try AdhocBuildBinary.run([
                "manifest", ipa, "--base-url", "https://b.example/x/", "-o", "-", "--bundle-version", "build"
            ])
            #expect(manifest.stdoutText.contains("<key>bundle-version</key>\n\t\t\t\t<string>1</string>"))
            let http = try AdhocBuildBinary.run(["manifest", ipa, "--base-url", "http://b.example/x/", "-o", "-"])
            #expect(http.status == 1)
            #expect(http.stderrText.hasPrefix("error: base URL 'http://b.example/x/' uses http;"))
            let missing = try AdhocBuildBinary.run(["page", ipa, "-o", folder.path("x")])
            #expect(missing.status == 2 && missing.stderrText.hasPrefix("error: missing --base-url URL\n"))
        }
    }
}
