import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import Manifest

/// `page.json` holds what the page says without its links, so the page and manifest can be written
/// again with other links: the same links give the same bytes, and other links change only the links.
struct PageContentTests {
    @Test func thePageWrittenAgainFromPageJSONWithTheSameLinksIsTheSameBytes() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let ipa = try InstallPageTests.hostileIPA(folder)
            var options = InstallPage.Options(baseURL: "https://builds.example.com/QA/")
            options.notes = "Fixes & more"
            _ = try InstallPage(options: options).write(ipa: ipa, to: folder.path("page"))
            let content = try PageContent(json: try Data(contentsOf: URL(fileURLWithPath: folder.path("page/page.json"))))
            let links = ReleaseLinks.beside(base: "https://builds.example.com/QA/", ipaName: (ipa as NSString).lastPathComponent)
            let rendered = try InstallPage.render(content, links: links, templates: try TemplateSet())
            #expect(Data(rendered.page.utf8) == (try Data(contentsOf: URL(fileURLWithPath: folder.path("page/index.html")))))
            #expect(rendered.manifest == (try Data(contentsOf: URL(fileURLWithPath: folder.path("page/manifest.plist")))))
        }
    }

    /// Presigned links hold `&`: escaped as `&amp;` in the page's attributes and the manifest's XML,
    /// and the manifest's URL percent-encoded whole as the install link's `url=` value.
    @Test func absoluteLinksWithAmpersandsAreEscapedForHTMLAndXML() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let ipa = try InstallPageTests.hostileIPA(folder)
            _ = try InstallPage(options: InstallPage.Options(baseURL: "https://ci.example.com/")).write(ipa: ipa, to: folder.path("page"))
            let content = try PageContent(json: try Data(contentsOf: URL(fileURLWithPath: folder.path("page/page.json"))))
            let links = ReleaseLinks(ipaName: content.ipaName) {
                "https://store.example.com/b/\(URLEncoding.encodeComponent($0))?X-Amz-Date=1&X-Amz-Signature=ab"
            }
            let rendered = try InstallPage.render(content, links: links, templates: try TemplateSet())
            #expect(rendered.page.contains("href=\"https://store.example.com/b/style.css?X-Amz-Date=1&amp;X-Amz-Signature=ab\""))
            #expect(rendered.page.contains("src=\"https://store.example.com/b/install.js?X-Amz-Date=1&amp;X-Amz-Signature=ab\""))
            #expect(!rendered.page.contains("Date=1&X-Amz"))
            #expect(
                links.install
                    == "itms-services://?action=download-manifest&url=https%3A%2F%2Fstore.example.com%2Fb%2Fmanifest.plist%3FX-Amz-Date%3D1%26X-Amz-Signature%3Dab"
            )
            let manifest = String(decoding: rendered.manifest, as: UTF8.self)
            #expect(manifest.contains("Evil%20App%20%231.ipa?X-Amz-Date=1&amp;X-Amz-Signature=ab</string>"))
        }
    }

    @Test func aPageJSONOfANewerFormatOrNotOneIsRefused() throws {
        let newer = Data(
            #"{"format": 2, "page": {}, "manifest": {"bundleIdentifier": "a", "bundleVersion": "1", "title": "A"}, "ipaName": "A.ipa", "hasIcons": false}"#
                .utf8)
        let error = try #require(throws: Diagnostic.self) { _ = try PageContent(json: newer) }
        #expect(error.message.contains("format 2, newer than this adhocbuild reads"))
        #expect(throws: Diagnostic.self) { _ = try PageContent(json: Data("[]".utf8)) }
    }

    /// A page link longer than any QR code holds (a presigned URL with a long session token) leaves the
    /// QR card out instead of failing the page; a short one keeps it.
    @Test func aPageLinkTooLongForAQRCodeLeavesTheCardOut() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let ipa = try InstallPageTests.hostileIPA(folder)
            _ = try InstallPage(options: InstallPage.Options(baseURL: "https://ci.example.com/")).write(ipa: ipa, to: folder.path("page"))
            let content = try PageContent(json: try Data(contentsOf: URL(fileURLWithPath: folder.path("page/page.json"))))
            let token = String(repeating: "FwoGZXIvYXdzE%2F", count: 200)
            let long = ReleaseLinks(ipaName: content.ipaName) { "https://store.example.com/\($0)?X-Amz-Security-Token=\(token)" }
            let page = try InstallPage.render(content, links: long, templates: try TemplateSet()).page
            #expect(!page.contains("qr-card"))
            #expect(page.contains("id=\"install\""))
            let short = ReleaseLinks(ipaName: content.ipaName) { "https://store.example.com/\($0)?X-Amz-Signature=ab" }
            #expect(try InstallPage.render(content, links: short, templates: try TemplateSet()).page.contains("qr-card"))
        }
    }
}
