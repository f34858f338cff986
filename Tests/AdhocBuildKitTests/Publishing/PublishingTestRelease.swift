import AssetCatalog
import Foundation
import IPAKit
import Manifest
import ObjectStorage
import PlistKit
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// A release folder as `release` writes it (`DIST/<env>/<version>-<build>/`, made by `InstallPage`
/// from a small app), and a fresh bucket on the test's SeaweedFS to publish it to.
struct PublishingTestRelease {
    /// An environment and an app name with characters that URLs, XML and HTML each escape.
    static let environment = "QA & Beta"
    static let appName = "Shout & <Out>"

    let folder: String
    let ipa: String
    let server: SeaweedFS
    let bucket: String

    /// Makes the release under `temporary` (the ipa holding `payloadBytes` of incompressible data) and a bucket.
    init(in temporary: TemporaryFolder, payloadBytes: Int = 1000) throws {
        server = try SeaweedFS.shared()
        bucket = "publish-" + UUID().uuidString.prefix(13).lowercased()
        try Self.client(server).createBucket(bucket)
        try temporary.create(
            "Shout.app/Info.plist",
            try PropertyList.encode(
                [
                    "CFBundleIdentifier": "com.example.shout", "CFBundleDisplayName": .string(Self.appName), "CFBundleExecutable": "Shout",
                    "CFBundleVersion": "42", "CFBundleShortVersionString": "1.4.0", "MinimumOSVersion": "15.0", "UIDeviceFamily": [1],
                    "CFBundleIcons": ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60"]]]
                ], format: .binary))
        var pixels = [UInt8]()
        for y in 0..<60 { for x in 0..<60 { pixels += [UInt8(x * 4), UInt8(y * 4), 90, 255] } }
        try temporary.create("Shout.app/AppIcon60x60@2x.png", RGBAImage(width: 60, height: 60, pixels: pixels).pngData())
        var random = SystemRandomNumberGenerator()
        let words = (0..<(payloadBytes + 7) / 8).map { _ in random.next() }
        try temporary.create("Shout.app/payload.bin", words.withUnsafeBytes { Data($0.prefix(payloadBytes)) })
        chmod(try temporary.create("Shout.app/Shout", Data(repeating: 1, count: 100)), 0o755)
        let built = temporary.path("Shout.ipa")
        _ = try IPAPackager().package(temporary.path("Shout.app"), to: built)
        folder = temporary.path("dist/\(Self.environment)/1.4.0-42")
        var options = InstallPage.Options(baseURL: "https://ci.example.com/dist/")
        options.environment = Self.environment
        options.notes = "Fixes & more"
        _ = try InstallPage(options: options).write(ipa: built, to: folder)
        ipa = folder + "/Shout.ipa"
    }

    /// A client of the test's store, addressed as `host` (`localhost` for a browser, which maps every other host away).
    static func client(
        _ server: SeaweedFS, options: S3Client.Options = S3Client.Options(), clock: @escaping @Sendable () -> Date = { Date() },
        host: String? = nil
    ) throws -> S3Client {
        let credentials = AWSCredentials(accessKeyID: server.accessKey, secretAccessKey: SecretText(server.secretKey), source: "test")
        let endpoint = host.map { server.endpoint.replacingOccurrences(of: "127.0.0.1", with: $0) } ?? server.endpoint
        return S3Client(
            endpoint: try S3Endpoint(url: endpoint, allowHTTP: true), credentials: credentials, region: server.region,
            options: options, clock: clock)
    }

    /// The store at `s3://bucket/builds/`, with `links` minted at `linkClock`'s time.
    func store(
        links: ReleaseStore.Links = .presigned(ttl: 3600), options: S3Client.Options = S3Client.Options(),
        linkClock: @escaping @Sendable () -> Date = { Date() }
    ) throws -> ReleaseStore {
        ReleaseStore(
            client: try Self.client(server, options: options), location: S3Location(bucket: bucket, prefix: "builds/"), links: links,
            linkClient: try Self.client(server, clock: linkClock))
    }

    /// Fetches `url` with curl, as a browser or iOS would: no credentials, no cookies.
    static func fetch(_ url: String, method: String = "GET") throws -> (status: Int, body: Data, contentType: String) {
        let curl = try #require(ProcessResult.which("curl"))
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-\(UUID().uuidString)").path
        defer { unlink(output) }
        let methodArguments = method == "HEAD" ? ["-I"] : []
        let run = try ProcessResult.run(curl, ["-s", "-o", output, "-w", "%{http_code} %{content_type}"] + methodArguments + [url])
        let parts = run.stdoutText.split(separator: " ", maxSplits: 1)
        let body = (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()
        return (Int(parts.first ?? "") ?? 0, body, parts.count > 1 ? String(parts[1]) : "")
    }

    /// Every `href` and `src` of a page, HTML entities decoded.
    static func links(inPage html: String) -> [String] {
        var found: [String] = []
        for attribute in ["href=\"", "src=\""] {
            var rest = html[...]
            while let start = rest.range(of: attribute) {
                guard let end = rest[start.upperBound...].firstIndex(of: "\"") else { break }
                found.append(
                    String(rest[start.upperBound..<end]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(
                        of: "&quot;", with: "\""))
                rest = rest[end...]
            }
        }
        return found
    }

    /// The `url=` value of an `itms-services` link, percent-decoded.
    static func manifestURL(inInstallLink link: String) throws -> String {
        let value = try #require(link.range(of: "&url=").map { String(link[$0.upperBound...]) })
        return try #require(value.removingPercentEncoding)
    }
}
