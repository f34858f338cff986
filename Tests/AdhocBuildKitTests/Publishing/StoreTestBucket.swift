import Foundation
import Manifest
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// A fresh bucket in the test process's SeaweedFS, with releases put into it as objects (the way
/// `publish` leaves them) and links fetched as an iPhone would: with curl, no credentials.
struct StoreTestBucket {
    static let prefix = "builds/ios/"
    let server: SeaweedFS
    let bucket: String

    init() throws {
        server = try SeaweedFS.shared()
        bucket = "index-" + UUID().uuidString.prefix(13).lowercased()
        try client().createBucket(bucket)
    }

    /// A client of its own (each concurrent agent makes one).
    func client() throws -> S3Client {
        let credentials = AWSCredentials(accessKeyID: server.accessKey, secretAccessKey: SecretText(server.secretKey), source: "test")
        return S3Client(endpoint: try S3Endpoint(url: server.endpoint, allowHTTP: true), credentials: credentials, region: server.region)
    }

    func store(_ links: ReleaseStore.Links = .presigned(ttl: 3600)) throws -> ReleaseStore {
        ReleaseStore(client: try client(), location: S3Location(bucket: bucket, prefix: Self.prefix), links: links)
    }

    static func info(_ environment: String, _ version: String, _ build: String, date: String, icon: String? = nil) -> BuildInfo {
        var info = BuildInfo()
        info.appName = "ShoutOut"
        info.environment = environment
        info.version = version
        info.build = build
        info.date = date
        info.published = date
        info.page = "index.html"
        info.icon = icon
        return info
    }

    /// The page a release's `index.html` holds in these tests.
    static func page(_ folder: String) -> String { "<!DOCTYPE html><title>page of \(folder)</title>\n" }

    /// Puts `<env>/<version>-<build>/` (its page, its icon when named, then its `build.json`) under the
    /// prefix, and returns its folder.
    @discardableResult
    func putRelease(_ info: BuildInfo, client: S3Client? = nil) throws -> String {
        let folder = "\(info.environment!)/\(info.version!)-\(info.build!)"
        let client = try client ?? self.client()
        try put(folder + "/index.html", Data(Self.page(folder).utf8), client: client)
        if let icon = info.icon { try put(folder + "/" + icon, Data("png of \(folder)".utf8), client: client) }
        try put(folder + "/build.json", try info.jsonData(), client: client)
        return folder
    }

    func put(_ relative: String, _ data: Data, client: S3Client? = nil) throws {
        try (client ?? self.client()).putObject(bucket: bucket, key: Self.prefix + relative, body: .data(data))
    }

    func get(_ relative: String) throws -> Data { try client().getObject(bucket: bucket, key: Self.prefix + relative).data }

    func text(_ relative: String) throws -> String { String(decoding: try get(relative), as: UTF8.self) }

    /// The HTTP status and body of a GET of `url` by curl, with no credentials and no cookies.
    static func fetch(_ url: String) throws -> (status: String, body: String) {
        let curl = try #require(ProcessResult.which("curl"))
        let text = try ProcessResult.run(curl, ["-s", "-w", "\n%{http_code}", url]).stdoutText
        let end = try #require(text.lastIndex(of: "\n"))
        return (String(text[text.index(after: end)...]), String(text[..<end]))
    }

    /// Every `href` and `src` of an HTML page, with `&amp;` read back as `&`.
    static func links(in html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"(?:href|src)="([^"]*)""#)
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map {
            String(html[Range($0.range(at: 1), in: html)!]).replacingOccurrences(of: "&amp;", with: "&")
        }
    }
}
