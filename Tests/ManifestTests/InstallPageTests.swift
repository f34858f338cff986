import AssetCatalog
import Foundation
import IPAKit
import Manifest
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Install pages and manifests for hostile metadata, checked with Python's plistlib and json.
@Suite struct InstallPageTests {
    static let hostileName = "<script>alert(1)</script>&\"'"
    /// A valid URL whose `&`, `'` and `;` must be XML-escaped in the manifest and HTML-escaped in the page.
    static let hostileBase = "https://builds.example.com/shout%20out/'x'&y=1;z/"
    /// The base is the user's and kept as given; only the ipa's name is encoded.
    static let encodedBase = hostileBase

    /// An ipa whose display name is hostile, with a 100×100 icon.
    static func hostileIPA(_ folder: TemporaryFolder) throws -> String {
        try folder.create(
            "Evil.app/Info.plist",
            try PropertyList.encode(
                [
                    "CFBundleIdentifier": "com.example.evil", "CFBundleDisplayName": .string(hostileName), "CFBundleExecutable": "Evil",
                    "CFBundleVersion": "42", "CFBundleShortVersionString": "1.4.0", "MinimumOSVersion": "15.0", "UIDeviceFamily": [1, 2],
                    "CFBundleIcons": ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60"]]]
                ], format: .binary))
        var pixels = [UInt8]()
        for y in 0..<100 { for x in 0..<100 { pixels += [UInt8(x * 2), UInt8(y * 2), 200, 255] } }
        try folder.create("Evil.app/AppIcon60x60@2x.png", RGBAImage(width: 100, height: 100, pixels: pixels).pngData())
        let executable = try folder.create("Evil.app/Evil", Data(repeating: 1, count: 100))
        chmod(executable, 0o755)
        let ipa = folder.path("Evil App #1.ipa")
        _ = try IPAPackager().package(folder.path("Evil.app"), to: ipa)
        return ipa
    }

    func python(_ script: String, _ arguments: [String]) throws -> String {
        let python = try #require(ProcessResult.which("python3"))
        let result = try ProcessResult.run(python, ["-c", "import sys, json, plistlib\n" + script] + arguments)
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdoutText
    }

    @Test func hostileMetadataIsEscapedInTheManifestThePageAndTheLink() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            var options = InstallPage.Options(baseURL: Self.hostileBase)
            options.environment = "Staging <b>"
            options.notes = "Fixed <img src=x onerror=alert(1)> & more\n\n- see https://e.example/?a=1&b=2"
            let out = folder.path("site")
            let result = try InstallPage(options: options).write(ipa: ipa, to: out)
            #expect(result.manifestURL == Self.encodedBase + "manifest.plist")
            #expect(result.ipaURL == Self.encodedBase + "Evil%20App%20%231.ipa")
            // plistlib reads every key of the manifest back exactly.
            let manifest = try python(
                """
                m = plistlib.load(open(sys.argv[1], 'rb'))
                item = m['items'][0]
                print(json.dumps([[a['kind'], a['url']] for a in item['assets']]))
                print(json.dumps(item['metadata'], sort_keys=True))
                """, [out + "/manifest.plist"])
            #expect(
                manifest == """
                    [["software-package", "\(Self.encodedBase)Evil%20App%20%231.ipa"], ["display-image", "\(Self.encodedBase)icon-57.png"], ["full-size-image", "\(Self.encodedBase)icon-512.png"]]
                    {"bundle-identifier": "com.example.evil", "bundle-version": "1.4.0", "kind": "software", "subtitle": "Staging <b>", "title": "<script>alert(1)</script>&\\"'"}

                    """)
            let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
            #expect(!html.contains(Self.hostileName))
            #expect(!html.contains("<img src=x"))
            #expect(html.contains("<h1 id=\"app-name\">&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;</h1>"))
            let href = "itms-services://?action=download-manifest&amp;url=" + URLEncoding.encodeComponent(result.manifestURL)
            #expect(html.contains("<a class=\"install\" id=\"install\" href=\"\(href)\">"))
            #expect(html.contains("<span class=\"badge\" title=\"Environment\">Staging &lt;b&gt;</span>"))
            #expect(html.contains("href=\"https://builds.example.com/shout%20out/&#39;x&#39;&amp;y=1;z/manifest.plist\""))
            let manifestText = try String(contentsOfFile: out + "/manifest.plist", encoding: .utf8)
            #expect(manifestText.contains("<string>https://builds.example.com/shout%20out/'x'&amp;y=1;z/Evil%20App%20%231.ipa</string>"))
            #expect(!html.contains("http://") || !html.contains("src=\"http"))
            // The feed is valid JSON with the same URLs.
            let feed = try python(
                "f = json.load(open(sys.argv[1])); print(f['installURL'] == sys.argv[2], f['build'], f['environment'])",
                [out + "/version.json", result.installURL])
            #expect(feed == "True 42 Staging <b>\n")
            // Icons at the sizes the manifest promises.
            #expect(RGBAImage.pngDimensions(of: try Data(contentsOf: URL(fileURLWithPath: out + "/icon-57.png")))! == (57, 57))
            #expect(RGBAImage.pngDimensions(of: try Data(contentsOf: URL(fileURLWithPath: out + "/icon-512.png")))! == (512, 512))
            #expect(FileManager.default.fileExists(atPath: out + "/Evil App #1.ipa"))
        }
    }

    /// Every file is made before any is written: a template that fails leaves a published page as
    /// it was (its manifest wrote first, pointing at an ipa never copied) and a new folder unmade.
    @Test func aBrokenTemplateLeavesThePageFolderAsItWas() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            var options = InstallPage.Options(baseURL: "https://builds.example.com/")
            _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("page"))
            let before = folder.snapshot().filter { $0.key.hasPrefix("page/") }
            try folder.create("templates/page.mustache", Data("{{#unclosed}}".utf8))
            options.templatesFolder = folder.path("templates")
            options.title = "Another"
            #expect(throws: (any Error).self) { _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("page")) }
            #expect(folder.snapshot().filter { $0.key.hasPrefix("page/") } == before)
            // The page, its stylesheet and script, the manifest, two icons, version.json, build.json, page.json, the ipa.
            #expect(before.count == 10)
            #expect(throws: (any Error).self) { _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("new/page")) }
            #expect(!FileManager.default.fileExists(atPath: folder.path("new")))
        }
    }

    /// A damaged ipa (one flipped byte in its icon) is not published: one line naming the
    /// entry, and nothing written. It was copied beside a page that said the icon was missing.
    @Test func aDamagedIpaIsNotPublished() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ipa)))
            let name = Array("Payload/Evil.app/AppIcon60x60@2x.png".utf8)
            let header = try #require(
                (0..<(bytes.count - 30)).first {
                    bytes[$0..<($0 + 4)].elementsEqual([0x50, 0x4B, 0x03, 0x04]) && bytes[($0 + 30)...].starts(with: name)
                })
            func field(_ at: Int) -> Int { Int(bytes[header + at]) | Int(bytes[header + at + 1]) << 8 }
            bytes[header + 30 + field(26) + field(28) + (field(18) | field(20) << 16) / 2] ^= 0x55
            try Data(bytes).write(to: URL(fileURLWithPath: ipa))
            expectDiagnostic(ManifestProblem.self) {
                _ = try InstallPage(options: InstallPage.Options(baseURL: "https://b.example/")).write(ipa: ipa, to: folder.path("page"))
            }
            do {
                _ = try InstallPage(options: InstallPage.Options(baseURL: "https://b.example/")).write(ipa: ipa, to: folder.path("page"))
            } catch {
                #expect("\(error)".contains("Payload/Evil.app/AppIcon60x60@2x.png is damaged"), "\(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("page")))
            // An app folder is not an ipa to publish.
            #expect(
                throws: Diagnostic.manifest(
                    "is a folder, not an .ipa; package it first (adhocbuild package)", file: folder.path("Evil.app"))
            ) {
                _ = try InstallPage(options: InstallPage.Options(baseURL: "https://b.example/")).write(
                    ipa: folder.path("Evil.app"), to: folder.path("page"))
            }
        }
    }

    /// Issue 31: every file of the page is known to be writable before the ipa is copied; a folder named
    /// index.html failed the page after the ipa was copied into it.
    @Test func aPageFileThatCannotBeWrittenFailsBeforeTheIpaIsCopied() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            try folder.create("page/index.html/notes.txt", Data("the user's".utf8))
            try folder.create("page/\(Leftover.dead("Evil App #1.ipa"))", Data(count: 1 << 16))
            let before = folder.listing("page")
            #expect(throws: Diagnostic.io("is a folder, not a file", file: folder.path("page/index.html"))) {
                _ = try InstallPage(options: InstallPage.Options(baseURL: "https://builds.example.com/")).write(
                    ipa: ipa, to: folder.path("page"))
            }
            // Only what a killed run left is gone.
            #expect(folder.listing("page") == before.filter { !$0.key.hasPrefix(".adhocbuild-tmp-") })
        }
    }

    /// "Built" is when the build was made and "Published" when the page was written, each labelled, on
    /// the page, in `build.json` and `version.json` and in the index: "Built" was the publishing time.
    /// Without a build time only "Published" is shown.
    @Test func thePageSaysWhenTheBuildWasMadeAndWhenItWasPublished() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            var options = InstallPage.Options(baseURL: "https://b.example/QA/1.4.0-42/")
            options.environment = "QA"
            options.now = PlistDate(iso8601: "2026-02-01T10:00:00Z")!.date
            options.buildDate = PlistDate(iso8601: "2026-01-31T08:30:00Z")!.date
            options.buildDateSource = "its signing time"
            _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("dist/QA/1.4.0-42"))
            let html = try String(contentsOfFile: folder.path("dist/QA/1.4.0-42/index.html"), encoding: .utf8)
            #expect(
                html.contains(
                    "<dt>Built</dt><dd><time datetime=\"2026-01-31T08:30:00Z\">2026-01-31 08:30 UTC</time> "
                        + "<span class=\"hint\">(its signing time)</span></dd>"))
            #expect(html.contains("<dt>Published</dt><dd><time datetime=\"2026-02-01T10:00:00Z\">2026-02-01 10:00 UTC</time></dd>"))
            let info = try BuildInfo(json: Data(contentsOf: URL(fileURLWithPath: folder.path("dist/QA/1.4.0-42/build.json"))))
            #expect(info.built == "2026-01-31T08:30:00Z" && info.published == "2026-02-01T10:00:00Z" && info.date == info.published)
            let feed = try PropertyList(contentsOf: folder.path("dist/QA/1.4.0-42/version.json")).value
            #expect(feed["built"] == "2026-01-31T08:30:00Z" && feed["published"] == "2026-02-01T10:00:00Z")
            let (releases, _) = try BuildIndex.releases(in: folder.path("dist"))
            let index = try BuildIndex.html(releases, title: "Builds", templates: try TemplateSet())
            #expect(index.contains("published 2026-02-01 10:00:00 UTC · built 2026-01-31 08:30:00 UTC"))
            options.buildDate = nil
            _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("unknown"))
            let unknown = try String(contentsOfFile: folder.path("unknown/index.html"), encoding: .utf8)
            #expect(!unknown.contains("<dt>Built</dt>") && unknown.contains("<dt>Published</dt>"))
            #expect(try BuildInfo(json: Data(contentsOf: URL(fileURLWithPath: folder.path("unknown/build.json")))).built == nil)
        }
    }

    /// A file where the page's folder should be is one line naming the path, not Foundation's error dump.
    @Test func aFileInTheWayOfThePageFolderIsOneClearLine() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            try folder.create("afile", Data("x".utf8))
            let options = InstallPage.Options(baseURL: "https://builds.example.com/")
            #expect(throws: Diagnostic.io("is a file, not a folder", file: folder.path("afile"))) {
                _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("afile"))
            }
            #expect(
                throws: Diagnostic.io("cannot be made: \(folder.path("afile")) is a file, not a folder", file: folder.path("afile/sub"))
            ) {
                _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("afile/sub"))
            }
        }
    }

    @Test func thePageUsesNoOutsideResources() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            _ = try InstallPage(options: InstallPage.Options(baseURL: "https://b.example/x/")).write(ipa: ipa, to: folder.path("site"))
            let html = try String(contentsOfFile: folder.path("site/index.html"), encoding: .utf8)
            #expect(html.contains("<link rel=\"icon\" href=\"icon-57.png\">"))
            // Its stylesheet and script sit beside it, and nothing else is fetched.
            let style = try String(contentsOfFile: folder.path("site/style.css"), encoding: .utf8)
            let script = try String(contentsOfFile: folder.path("site/install.js"), encoding: .utf8)
            #expect(html.components(separatedBy: "rel=\"stylesheet\"").count == 2)
            #expect(html.contains("<link rel=\"stylesheet\" href=\"style.css\">"))
            #expect(html.components(separatedBy: "<script").count == 2)
            #expect(html.contains("<script src=\"install.js\" defer></script>"))
            for (name, text) in [("index.html", html), ("style.css", style), ("install.js", script)] {
                for pattern in ["@import", "url(", "src=\"http", "src=\"//", "fonts.g", "cdn", "fetch(", "XMLHttpRequest"] {
                    #expect(!text.contains(pattern), "\(name) refers to '\(pattern)'")
                }
            }
            // No inline style or script: an artifact server's Content-Security-Policy (Jenkins') would refuse them.
            for pattern in ["<style", " style=\"", "<script>", " onclick=", " onload="] {
                #expect(!html.contains(pattern), "the page has an inline '\(pattern)'")
            }
            #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
            #expect(html.contains("alt=\"&lt;script&gt;"))
        }
    }

    @Test(Fixtures.enabled) func anExpiredOrAppStoreProfileDisablesTheInstallButton() throws {
        try withTemporaryFolder { folder in
            let ipa = Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path
            var options = InstallPage.Options(baseURL: "https://b.example/demo/")
            options.copyIPA = false
            options.now = PlistDate(iso8601: "2021-12-01")!.date
            _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("valid"))
            let valid = try String(contentsOfFile: folder.path("valid/index.html"), encoding: .utf8)
            #expect(valid.contains("id=\"install\""))
            #expect(valid.contains("“Untrusted Enterprise Developer”"))
            options.now = PlistDate(iso8601: "2022-02-01")!.date
            // An expired profile is refused unless allowed, then warned about (it was silent, with exit 0).
            expectDiagnostic(ManifestProblem.self) { try InstallPage(options: options).write(ipa: ipa, to: folder.path("expired")) }
            #expect(!FileManager.default.fileExists(atPath: folder.path("expired")))
            options.expiredProfile = .warn
            let warned = try InstallPage(options: options).write(ipa: ipa, to: folder.path("expired"))
            #expect(
                warned.warnings.map(\.report).contains(
                    "\(ipa): its provisioning profile \"iOS Team Inhouse Provisioning Profile: com.icyleaf.test.Demo\" expired on "
                        + "2022-01-15 06:40 UTC, so iOS will not install it and the page says it cannot be installed (going on: --allow-expired)"
                ),
                "\(warned.warnings)")
            options.expiredProfile = .refuse
            let expired = try String(contentsOfFile: folder.path("expired/index.html"), encoding: .utf8)
            #expect(!expired.contains("id=\"install\""))
            #expect(expired.contains("its provisioning profile expired on 2022-01-15 06:40 UTC"))
            let store = Fixtures.url("ipa", "app_info_ipad_appstore-cgbi-icons.ipa").path
            options.now = PlistDate(iso8601: "2017-01-01")!.date
            _ = try InstallPage(options: options).write(ipa: store, to: folder.path("store"))
            #expect(
                try String(contentsOfFile: folder.path("store/index.html"), encoding: .utf8)
                    .contains("This build is signed for the App Store and cannot be installed from this page."))
        }
    }

    @Test func anHTTPBaseURLIsRefusedUnlessAllowed() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.hostileIPA(folder)
            expectDiagnostic(ManifestProblem.self) {
                try InstallPage(options: InstallPage.Options(baseURL: "http://b.example/")).write(ipa: ipa, to: folder.path("site"))
            }
            var options = InstallPage.Options(baseURL: "http://b.example/")
            options.allowHTTP = true
            let result = try InstallPage(options: options).write(ipa: ipa, to: folder.path("site"))
            let expected = "the base URL 'http://b.example/' uses http: iOS will refuse to install from it; serve it over https"
            #expect(result.warnings.map(\.message).contains(expected))
            let manifestWarnings = try OTAManifest.write(
                {
                    var request = OTAManifest.Request(ipa: ipa, baseURL: "http://b.example/")
                    request.allowHTTP = true
                    return request
                }(), to: folder.path("manifest.plist"))
            #expect(manifestWarnings == [expected])
        }
    }

    @Test func theIndexGroupsReleasesByEnvironmentNewestFirst() throws {
        try withTemporaryFolder { folder in
            for (path, environment, version, date) in [
                ("Staging/1.0-1", "Staging", "1.0", "2026-01-01T10:00:00Z"),
                ("Staging/1.1-2", "Staging", "1.1", "2026-02-01T10:00:00Z"),
                ("Release/1.0-1", "Release", "1.0", "2025-12-01T10:00:00Z")
            ] {
                try folder.create(
                    "dist/\(path)/build.json",
                    Data(
                        """
                        {"appName": "Shout<Out>", "version": "\(version)", "build": "\(path.suffix(1))", "environment": "\(environment)",
                         "date": "\(date)", "page": "index.html", "icon": "icon-57.png"}
                        """.utf8))
            }
            let (releases, problems) = try BuildIndex.releases(in: folder.path("dist"))
            #expect(problems == [] && releases.count == 3)
            let html = try BuildIndex.html(releases, title: "ShoutOut builds", templates: try TemplateSet())
            let staging = try #require(html.range(of: "id=\"env-Staging\""))
            let release = try #require(html.range(of: "id=\"env-Release\""))
            #expect(staging.lowerBound < release.lowerBound)
            let newer = try #require(html.range(of: "href=\"Staging/1.1-2/index.html\""))
            let older = try #require(html.range(of: "href=\"Staging/1.0-1/index.html\""))
            #expect(newer.lowerBound < older.lowerBound)
            #expect(html.contains("<a class=\"latest\" href=\"Staging/1.1-2/index.html\">Latest: 1.1 (2)</a>"))
            #expect(html.contains("Shout&lt;Out&gt; 1.1 (2)"))
            #expect(html.contains("3 builds in 2 environments"))
        }
    }

    /// The team follows the signer once: `signed by Apple Development: Demo Signer (DEMO123456)`, not
    /// `… (DEMO123456) (DEMO123456)`; a signer whose name does not end with it still gets it.
    @Test func theIndexNamesTheTeamOnceAfterTheSigner() throws {
        try withTemporaryFolder { folder in
            for (path, signer, team) in [
                ("QA/1-1", "Apple Development: Demo Signer (DEMO123456)", "DEMO123456"), ("QA/1-2", "Jane Appleseed", "ABCDE12345")
            ] {
                try folder.create(
                    "dist/\(path)/build.json",
                    Data(
                        #"{"appName": "A", "version": "1", "build": "\#(path.suffix(1))", "environment": "QA", "date": "2026-01-0\#(path.suffix(1))T10:00:00Z", "signer": "\#(signer)", "team": "\#(team)"}"#
                            .utf8))
            }
            let (releases, _) = try BuildIndex.releases(in: folder.path("dist"))
            let html = try BuildIndex.html(releases, title: "Builds", templates: try TemplateSet())
            #expect(html.contains("signed by Apple Development: Demo Signer (DEMO123456)</span>"))
            #expect(!html.contains("(DEMO123456) (DEMO123456)"))
            #expect(html.contains("signed by Jane Appleseed (ABCDE12345)</span>"))
        }
    }

    /// Dates order by the instant they name, zones included, not by their text; one that does not
    /// read sorts as the oldest (it sorted as the newest when it began with a later letter); builds
    /// of the same second by their numbers.
    @Test func theIndexOrdersByTheInstantAndPutsUnreadableDatesLast() throws {
        try withTemporaryFolder { folder in
            for (path, date) in [
                ("QA/1-1", "2026-05-31T23:30:00Z"), ("QA/1-2", "2026-06-01T00:00:00+02:00"), ("QA/1-3", "yesterday"),
                ("QA/1-4", "2026-05-31T20:00:00-04:00")
            ] {
                try folder.create(
                    "dist/\(path)/build.json",
                    Data(#"{"appName": "A", "version": "1", "build": "\#(path.suffix(1))", "environment": "QA", "date": "\#(date)"}"#.utf8))
            }
            // Two builds of the same second: the higher build number is the newer (it sorted as text).
            for build in ["99", "100"] {
                try folder.create(
                    "dist/QA/1.4.0-\(build)/build.json",
                    Data(
                        #"{"appName": "A", "version": "1.4.0", "build": "\#(build)", "environment": "QA", "date": "2026-06-02T10:00:00Z"}"#
                            .utf8))
            }
            let (releases, _) = try BuildIndex.releases(in: folder.path("dist"))
            let html = try BuildIndex.html(releases, title: "A", templates: try TemplateSet())
            #expect(html.contains("Latest: 1.4.0 (100)"))
            let order = ["QA/1.4.0-100", "QA/1.4.0-99", "QA/1-4", "QA/1-1", "QA/1-2", "QA/1-3"].map {
                html.range(of: "href=\"\($0)/index.html\"")?.lowerBound
            }
            #expect(order.allSatisfy { $0 != nil } && order == order.sorted { $0! < $1! }, "\(order)")
        }
    }
}
