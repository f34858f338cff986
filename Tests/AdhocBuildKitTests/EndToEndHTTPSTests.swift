import AdhocBuildKit
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// The whole path a tester's phone takes, over real HTTPS: nginx serves a release made by
/// `release`, curl follows every URL from the page to the manifest to the ipa and icons, and
/// headless Chromium as an iPhone finds the Install link pointing at the manifest.
@Suite(.serialized) struct EndToEndHTTPSTests {
    /// The nginx configuration the test uses (also in the README, as a ready-to-use snippet).
    static func nginxConfig(port: Int, root: String, certificate: String, key: String, runtime: String) -> String {
        NginxServer.config(
            port: port, root: root, runtime: runtime, listen: "ssl",
            server: ["ssl_certificate     \(certificate);", "ssl_certificate_key \(key);"])
    }

    func run(_ tool: String, _ arguments: [String]) throws -> ProcessResult {
        let path = try #require(ProcessResult.which(tool), "\(tool) is needed for the end-to-end test")
        return try ProcessResult.run(path, arguments)
    }

    @Test func aReleaseServedByNginxInstallsFromPageToManifestToIPA() throws {
        for tool in ["nginx", "openssl", "curl"]
        where ProcessResult.which(tool) == nil && !FileManager.default.fileExists(atPath: "/usr/sbin/\(tool)") {
            if Fixtures.isRequired { Issue.record("\(tool) is required in CI for the end-to-end test (make deps installs it)") }
            return
        }
        try withTemporaryFolder { folder in
            // A throwaway CA and a certificate for localhost signed by it.
            let tls = folder.path("tls")
            try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: true)
            _ = try folder.write("tls/san.cnf", "subjectAltName=DNS:localhost,IP:127.0.0.1\n")
            for arguments in [
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=adhocbuild test CA", "-keyout",
                    tls + "/ca.key", "-out", tls + "/ca.pem"
                ],
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", tls + "/server.key", "-out",
                    tls + "/server.csr"
                ],
                [
                    "x509", "-req", "-in", tls + "/server.csr", "-CA", tls + "/ca.pem", "-CAkey", tls + "/ca.key", "-CAcreateserial",
                    "-days", "2",
                    "-extfile", tls + "/san.cnf", "-out", tls + "/server.pem"
                ]
            ] {
                let result = try run("openssl", arguments)
                try #require(result.status == 0, "openssl \(arguments[0]): \(result.stderrText)")
            }
            // The release, made with the base URL nginx will serve it at.
            let socket = try FreePort.find()
            let dist = folder.path("dist")
            var options = ReleasePipeline.Options(
                environment: "Staging", input: ReleasePipelineTests.exampleApp,
                baseURL: "https://localhost:\(socket)/", out: dist)
            options.environmentsFolder = SampleEnvironments.path
            options.profile = try ReleasePipelineTests.profile(folder)
            options.processEnvironment = [:]
            options.notes = try folder.write("notes.txt", "Shouts load twice as fast.\n\n- Reactions")
            let release = try ReleasePipeline(options: options).run()
            // nginx on 127.0.0.1, stopped at the end whatever happens.
            let runtime = folder.path("nginx")
            let server = try NginxServer(
                executable: try #require(NginxServer.executable),
                config: Self.nginxConfig(
                    port: socket, root: dist, certificate: tls + "/server.pem", key: tls + "/server.key", runtime: runtime),
                runtime: runtime, port: socket)
            defer { server.stop() }
            let base = "https://localhost:\(socket)"
            func fetch(_ url: String) throws -> (status: String, type: String, body: Data) {
                let headers = folder.path("headers-\(UUID().uuidString)")
                let body = folder.path("body-\(UUID().uuidString)")
                var result = try run("curl", ["-sS", "--cacert", tls + "/ca.pem", "-D", headers, "-o", body, url])
                for _ in 0..<50 where result.status == 7 {  // nginx still starting
                    usleep(100_000)
                    result = try run("curl", ["-sS", "--cacert", tls + "/ca.pem", "-D", headers, "-o", body, url])
                }
                try #require(result.status == 0, "curl \(url): \(result.stderrText)")
                let head = try String(contentsOfFile: headers, encoding: .utf8)
                let status = head.split(separator: "\r\n").first.map(String.init) ?? ""
                let type =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
                    .map { String($0.dropFirst("content-type:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
                return (status, type, try Data(contentsOf: URL(fileURLWithPath: body)))
            }
            // The page, then every URL it leads to.
            let page = try fetch(release.pageURL)
            #expect(page.status.hasSuffix("200 OK") && page.type.hasPrefix("text/html"))
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(html.contains("href=\"\(release.installURL.replacingOccurrences(of: "&", with: "&amp;"))\""))
            let encodedManifest = try #require(release.installURL.components(separatedBy: "&url=").last)
            let manifestURL = try #require(encodedManifest.removingPercentEncoding)
            #expect(manifestURL == "\(base)/Staging/1.4.0-41/manifest.plist")
            let manifest = try fetch(manifestURL)
            #expect(manifest.type.hasPrefix("text/xml"))
            let value = try PropertyList(data: manifest.body).value
            #expect(value["items:0:metadata:bundle-identifier"] == "com.example.shoutout.staging")
            var assets: [String: String] = [:]
            for asset in value["items:0:assets"]?.arrayValue ?? [] {
                if let kind = asset["kind"]?.stringValue, let url = asset["url"]?.stringValue { assets[kind] = url }
            }
            let ipa = try fetch(try #require(assets["software-package"]))
            #expect(ipa.type == "application/octet-stream")
            let localIPA = try Data(contentsOf: URL(fileURLWithPath: release.ipa))
            #expect(ipa.body == localIPA)
            let sha = try run("sha256sum", [release.ipa]).stdoutText.prefix(64)
            let served = try folder.write("served.ipa", ipa.body)
            #expect(try run("sha256sum", [served]).stdoutText.prefix(64) == sha)
            for kind in ["display-image", "full-size-image"] {
                let icon = try fetch(try #require(assets[kind]))
                #expect(icon.type == "image/png" && icon.body.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(kind)")
            }
            #expect(release.pageURL.hasSuffix("/index.html"))
            let feed = try fetch(release.pageURL.dropLast("index.html".count) + "version.json")
            #expect(feed.type.hasPrefix("application/json"))
            let style = try fetch(release.pageURL.dropLast("index.html".count) + "style.css")
            #expect(style.status.hasSuffix("200 OK") && style.type.hasPrefix("text/css"))
            let index = try fetch(base + "/")
            #expect(String(decoding: index.body, as: UTF8.self).contains("Staging/1.4.0-41/index.html"))
            // The page in a browser, as an iPhone: the Install link decodes to the manifest's URL.
            guard ProcessResult.which("chromium") != nil else {
                if Fixtures.isRequired { Issue.record("Chromium is required in CI") }
                return
            }
            let python = try #require(ProcessResult.which("python3"))
            let browser = try ProcessResult.run(
                python,
                [
                    Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/browser_check.py").path,
                    release.pageURL, Fixtures.packageRoot.appendingPathComponent("test-artifacts").path + "/https",
                    "iphone"
                ])
            try #require(browser.status == 0, "browser: \(browser.stderrText)")
            let report = try #require(try JSONSerialization.jsonObject(with: browser.stdout) as? [String: [String: Any]])
            let href = try #require(report["iphone"]?["installHref"] as? String)
            #expect(href.components(separatedBy: "&url=").last?.removingPercentEncoding == manifestURL)
            #expect((report["iphone"]?["errors"] as? [String]) == [])
            #expect((report["iphone"]?["requests"] as? [String] ?? []).allSatisfy { $0.hasPrefix(base) })
        }
    }
}
