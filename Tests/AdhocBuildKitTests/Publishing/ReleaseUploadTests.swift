import Foundation
import Manifest
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// `publish` against a real store (SeaweedFS's S3 gateway on 127.0.0.1), which checks every signature
/// and refuses anonymous, tampered and expired requests: what a tester's iPhone fetches works with no
/// credentials, and nothing else does.
@Suite(SeaweedFS.enabled)
struct ReleaseUploadTests {
    /// The manifest's asset URLs by kind, read by Python's plistlib (so XML escaping is checked by a real parser).
    static func manifestAssets(_ data: Data) throws -> [String: String] {
        let python = try #require(ProcessResult.which("python3"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString).plist")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script =
            "import plistlib, json, sys\nm = plistlib.load(open(sys.argv[1], 'rb'))\n"
            + "print(json.dumps({a['kind']: a['url'] for a in m['items'][0]['assets']}))"
        let run = try ProcessResult.run(python, ["-c", script, file.path])
        #expect(run.status == 0, "\(run.stderrText)")
        return try JSONDecoder().decode([String: String].self, from: Data(run.stdoutText.utf8))
    }

    @Test func everyLinkOfThePublishedPageOpensWithoutCredentials() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let store = try release.store()
            let result = try ReleaseUpload(store: store).publish(release.folder)
            #expect(result.environment == PublishingTestRelease.environment && result.name == "1.4.0-42")

            let page = try PublishingTestRelease.fetch(result.links.page)
            #expect(page.status == 200)
            #expect(page.contentType == "text/html; charset=utf-8")
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("Shout &amp; &lt;Out&gt;"))
            let links = PublishingTestRelease.links(inPage: html)
            // No link is relative: one would lose the signature that lets it through.
            #expect(links.allSatisfy { $0.contains("://") }, "\(links)")
            let storeLinks = links.filter { $0.hasPrefix(release.server.endpoint) }
            // The favicon, stylesheet, icon, the QR code's page link, the manifest and the script.
            #expect(storeLinks.count >= 6, "\(links)")
            for link in storeLinks {
                #expect(link.contains("X-Amz-Signature="), "\(link)")
                #expect(try PublishingTestRelease.fetch(link).status == 200, "\(link)")
            }
            // The install link carries the manifest's presigned URL as one percent-encoded query value.
            let install = try #require(links.first { $0.hasPrefix("itms-services://") })
            #expect(install == result.links.install)
            let manifestURL = try PublishingTestRelease.manifestURL(inInstallLink: install)
            #expect(manifestURL == result.links.manifest)
            let manifest = try PublishingTestRelease.fetch(manifestURL)
            #expect(manifest.status == 200 && manifest.contentType == "application/xml")
            #expect(String(decoding: manifest.body, as: UTF8.self).contains("&amp;X-Amz-Credential="))

            // What iOS fetches from the manifest: the ipa, byte for byte, and the icons.
            let assets = try Self.manifestAssets(manifest.body)
            let ipa = try PublishingTestRelease.fetch(try #require(assets["software-package"]))
            #expect(ipa.status == 200 && ipa.contentType == "application/octet-stream")
            #expect(ipa.body == (try Data(contentsOf: URL(fileURLWithPath: release.ipa))))
            for kind in ["display-image", "full-size-image"] {
                let icon = try PublishingTestRelease.fetch(try #require(assets[kind]))
                #expect(icon.status == 200 && icon.contentType == "image/png", "\(kind)")
            }
        }
    }

    @Test func linksAreRefusedWhenTamperedWithOrStripped() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let result = try ReleaseUpload(store: try release.store()).publish(release.folder)
            let url = result.links.ipa
            #expect(try PublishingTestRelease.fetch(url).status == 200)
            let signature = try #require(url.range(of: "X-Amz-Signature=")).upperBound
            var tampered = url
            let digit = tampered[signature]
            tampered.replaceSubrange(signature...signature, with: digit == "0" ? "1" : "0")
            #expect(try PublishingTestRelease.fetch(tampered).status == 403)
            let anonymous = String(url[..<(try #require(url.firstIndex(of: "?")))])
            #expect(try PublishingTestRelease.fetch(anonymous).status == 403)
        }
    }

    /// Links minted an hour ago for a minute no longer open; the same release minted now does.
    @Test func linksStopWorkingWhenTheirLifetimeEnds() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let past = try release.store(links: .presigned(ttl: 60), linkClock: { Date().addingTimeInterval(-3600) })
            let expired = try ReleaseUpload(store: past).publish(release.folder)
            #expect(try PublishingTestRelease.fetch(expired.links.page).status == 403)
            #expect(try PublishingTestRelease.fetch(expired.links.ipa).status == 403)
            let now = try release.store(links: .presigned(ttl: 60))
            #expect(try PublishingTestRelease.fetch(try now.url("\(PublishingTestRelease.environment)/1.4.0-42/index.html")).status == 200)
        }
    }

    @Test func aPublishedReleaseIsRefusedUnlessReplaced() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let store = try release.store()
            _ = try ReleaseUpload(store: store).publish(release.folder)
            let error = try #require(throws: Diagnostic.self) { _ = try ReleaseUpload(store: store).publish(release.folder) }
            #expect(error.message.contains("is already published"))
            #expect(error.file == "s3://\(release.bucket)/builds/\(PublishingTestRelease.environment)/1.4.0-42/")
            var replacing = ReleaseUpload(store: store)
            replacing.replace = true
            _ = try replacing.publish(release.folder)
        }
    }

    /// A run stopped before `build.json` went up left a release that is not published: the next run
    /// publishes it without `--replace`, and aborts the multipart upload it left (its parts are billed).
    @Test func aReleaseLeftWithoutBuildJSONIsPublishedAgainAndItsUploadsAborted() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let store = try release.store()
            let prefix = "builds/\(PublishingTestRelease.environment)/1.4.0-42/"
            try store.client.putObject(bucket: release.bucket, key: prefix + "index.html", body: .data(Data("half".utf8)))
            _ = try store.client.createMultipartUpload(bucket: release.bucket, key: prefix + "Shout.ipa")
            let other = try store.client.createMultipartUpload(bucket: release.bucket, key: "builds/Other/1.0-1/App.ipa")
            #expect(try store.client.listMultipartUploads(bucket: release.bucket, prefix: prefix).count == 1)
            _ = try ReleaseUpload(store: store).publish(release.folder)
            #expect(try store.client.listMultipartUploads(bucket: release.bucket, prefix: prefix).isEmpty)
            let left = try store.client.listMultipartUploads(bucket: release.bucket, prefix: "builds/Other/")
            #expect(left.map(\.uploadID) == [other])
        }
    }

    @Test func aLargeIpaGoesUpInPartsAndArrivesWhole() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder, payloadBytes: 12 << 20)
            let options = S3Client.Options(partSize: 5 << 20, concurrency: 3, multipartThreshold: 5 << 20)
            let store = try release.store(options: options)
            let result = try ReleaseUpload(store: store).publish(release.folder)
            let fetched = try PublishingTestRelease.fetch(result.links.ipa)
            #expect(fetched.body == (try Data(contentsOf: URL(fileURLWithPath: release.ipa))))
            let info = try #require(
                try store.client.headObject(
                    bucket: release.bucket, key: store.key("\(PublishingTestRelease.environment)/1.4.0-42/Shout.ipa")))
            #expect(info.etag.hasSuffix("-3\""), "a multipart upload's entity tag counts its parts: \(info.etag)")
            #expect(try store.client.listMultipartUploads(bucket: release.bucket, prefix: "builds/").isEmpty)
        }
    }

    /// What `appstored` does with the ipa's link: a HEAD, then a GET. A presigned link is signed for one
    /// method, so the store answers the HEAD 403 (what the README says) and the GET with the ipa.
    @Test func aPresignedIpaLinkAnswersGETAndRefusesHEAD() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let result = try ReleaseUpload(store: try release.store()).publish(release.folder)
            #expect(try PublishingTestRelease.fetch(result.links.ipa, method: "HEAD").status == 403)
            #expect(try PublishingTestRelease.fetch(result.links.ipa).body == (try Data(contentsOf: URL(fileURLWithPath: release.ipa))))
        }
    }

    /// A public bucket (`--public-base-url`, the store readable without credentials, as behind a CDN):
    /// every link answers as `appstored` asks, HEAD then GET on the ipa, with no credentials.
    @Test func aPublicBucketAnswersHEADThenGETOnEveryLink() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let client = try PublishingTestRelease.client(release.server)
            try client.createBucket(release.server.publicBucket)
            let prefix = "run-\(UUID().uuidString.prefix(8).lowercased())/"
            let base = "\(release.server.endpoint)/\(release.server.publicBucket)/\(prefix)"
            let store = ReleaseStore(
                client: client, location: S3Location(bucket: release.server.publicBucket, prefix: prefix), links: .publicBase(base))
            let result = try ReleaseUpload(store: store).publish(release.folder)
            #expect(!result.links.page.contains("X-Amz"))
            let page = try PublishingTestRelease.fetch(result.links.page)
            #expect(page.status == 200)
            for link in PublishingTestRelease.links(inPage: String(decoding: page.body, as: UTF8.self)) where link.hasPrefix(base) {
                #expect(try PublishingTestRelease.fetch(link).status == 200, "\(link)")
            }
            let manifest = try PublishingTestRelease.fetch(try PublishingTestRelease.manifestURL(inInstallLink: result.links.install))
            let ipaURL = try #require(try Self.manifestAssets(manifest.body)["software-package"])
            let head = try PublishingTestRelease.fetch(ipaURL, method: "HEAD")
            #expect(head.status == 200 && head.contentType == "application/octet-stream")
            #expect(try PublishingTestRelease.fetch(ipaURL).body == (try Data(contentsOf: URL(fileURLWithPath: release.ipa))))
            // Only that bucket is public: the same objects in a private bucket are refused without a signature.
            #expect(
                try PublishingTestRelease.fetch(ipaURL.replacingOccurrences(of: release.server.publicBucket, with: release.bucket)).status
                    == 403)
        }
    }

    @Test func aPublicBaseWritesPlainLinks() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let base = "https://cdn.example.com/ios builds/"
            let result = try ReleaseUpload(store: try release.store(links: .publicBase(base))).publish(release.folder)
            #expect(result.links.page == "https://cdn.example.com/ios builds/QA%20%26%20Beta/1.4.0-42/index.html")
            #expect(result.links.ipa == "https://cdn.example.com/ios builds/QA%20%26%20Beta/1.4.0-42/Shout.ipa")
            let store = try release.store()
            let manifest = try store.client.getObject(
                bucket: release.bucket, key: store.key("\(PublishingTestRelease.environment)/1.4.0-42/manifest.plist"))
            #expect(try Self.manifestAssets(manifest.data)["software-package"] == result.links.ipa)
        }
    }

    /// `links` mints links again from what the store holds: after the first ones expired, the new page
    /// and everything it links open again, and build.json names them.
    @Test func linksMintedAgainOpenAfterTheFirstExpired() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let past = try release.store(links: .presigned(ttl: 60), linkClock: { Date().addingTimeInterval(-3600) })
            let first = try ReleaseUpload(store: past).publish(release.folder)
            #expect(try PublishingTestRelease.fetch(first.links.manifest).status == 403)
            try FileManager.default.removeItem(atPath: release.folder)  // links needs no local copy
            let store = try release.store()
            let links = try ReleaseLinkRefresh(store: store).refresh(environment: PublishingTestRelease.environment, name: "1.4.0-42").links
            let html = String(decoding: try PublishingTestRelease.fetch(links.page).body, as: UTF8.self)
            let manifestURL = try PublishingTestRelease.manifestURL(inInstallLink: links.install)
            #expect(html.contains(links.install.replacingOccurrences(of: "&", with: "&amp;")))
            let assets = try Self.manifestAssets(try PublishingTestRelease.fetch(manifestURL).body)
            #expect(try PublishingTestRelease.fetch(try #require(assets["software-package"])).status == 200)
            let info = try BuildInfo(
                json: try store.client.getObject(
                    bucket: release.bucket, key: store.key("\(PublishingTestRelease.environment)/1.4.0-42/build.json")
                ).data)
            #expect(info.pageURL == links.page && info.installURL == links.install)
        }
    }

    @Test func aReleaseFolderIsNamedByItsEnvironmentAndVersion() throws {
        #expect(try ReleaseUpload.storeFolder(of: "/tmp/dist/Staging/1.4.0-42/") == ("Staging", "1.4.0-42"))
        for bad in ["/tmp/dist/Staging/latest", "/tmp/dist/.staging/1.0-1", "/"] {
            #expect(throws: Diagnostic.self, "\(bad)") { _ = try ReleaseUpload.storeFolder(of: bad) }
        }
    }

    /// `links` takes the release's own address: the store is what is above `<env>/<version>-<build>/`.
    @Test func aReleasesAddressSplitsIntoTheStoreAndTheRelease() throws {
        let split = try ReleaseLinkRefresh.split("s3://builds/ios/app/Staging/1.4.0-42/")
        #expect(split.store == "s3://builds/ios/app/" && split.environment == "Staging" && split.name == "1.4.0-42")
        let atTheTop = try ReleaseLinkRefresh.split("s3://builds/QA/2.0-1")
        #expect(atTheTop.store == "s3://builds/" && atTheTop.environment == "QA" && atTheTop.name == "2.0-1")
        for bad in ["s3://builds/", "s3://builds/Staging/", "https://builds/Staging/1.0-1/"] {
            #expect(throws: Diagnostic.self, "\(bad)") { _ = try ReleaseLinkRefresh.split(bad) }
        }
    }

    @Test func aLinkLifetimeOverSevenDaysIsRefusedNamingTheOption() throws {
        var settings = StoreSettings()
        settings.linkTTL = TimeSpan(seconds: 8 * 86_400)
        let error = try #require(throws: Diagnostic.self) { _ = try settings.links() }
        #expect(error.message.hasPrefix("--link-ttl 8d is longer than 7 days"))
        settings.linkTTL = TimeSpan(seconds: 7 * 86_400)
        #expect(try settings.links() == .presigned(ttl: 604_800))
    }

    /// The published page in headless Chromium as an iPhone: its stylesheet, script and icon load through
    /// their presigned links (a relative link would get 403), no script error, the Install link decodes
    /// to the manifest's presigned URL, and nothing is fetched from anywhere but the store.
    @Test func thePublishedPageLoadsWholeInABrowserAsAnIPhone() throws {
        guard ProcessResult.which("chromium") != nil else {
            if Fixtures.isRequired { Issue.record("Chromium is required in CI") }
            return
        }
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try PublishingTestRelease(in: folder)
            let client = try PublishingTestRelease.client(release.server, host: "localhost")
            let store = ReleaseStore(
                client: client, location: S3Location(bucket: release.bucket, prefix: "builds/"), links: .presigned(ttl: 600))
            let result = try ReleaseUpload(store: store).publish(release.folder)
            let python = try #require(ProcessResult.which("python3"))
            let browser = try ProcessResult.run(
                python,
                [
                    Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/browser_check.py").path, result.links.page,
                    Fixtures.packageRoot.appendingPathComponent("test-artifacts").path + "/published-page", "iphone"
                ])
            try #require(browser.status == 0, "browser: \(browser.stderrText)")
            let report = try #require(try JSONSerialization.jsonObject(with: browser.stdout) as? [String: [String: Any]])
            let iphone = try #require(report["iphone"])
            #expect(iphone["stylesheetApplied"] as? Bool == true)
            #expect(iphone["device"] as? String == "iphone", "the script ran")
            #expect((iphone["appIcon"] as? [String: Any])?["loaded"] as? Bool == true)
            #expect((iphone["errors"] as? [String]) == [])
            let href = try #require(iphone["installHref"] as? String)
            #expect(try PublishingTestRelease.manifestURL(inInstallLink: href) == result.links.manifest)
            let origin = client.endpoint.scheme + "://" + client.endpoint.host + "/"
            #expect((iphone["requests"] as? [String] ?? []).allSatisfy { $0.hasPrefix(origin) }, "\(iphone["requests"] ?? [])")
        }
    }
}
