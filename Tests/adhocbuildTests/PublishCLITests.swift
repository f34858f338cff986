import Foundation
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

/// `publish` and `release --publish` as a CI step runs them, against a real store (SeaweedFS on
/// 127.0.0.1): credentials from the environment only and never printed or written, a kill in the
/// middle of a multipart upload leaving nothing visible and, after the next run, nothing billed.
@Suite(SeaweedFS.enabled)
struct PublishCLITests {
    let server: SeaweedFS
    let client: S3Client
    let bucket: String

    init() throws {
        server = try SeaweedFS.shared()
        let credentials = AWSCredentials(accessKeyID: server.accessKey, secretAccessKey: SecretText(server.secretKey), source: "test")
        client = S3Client(endpoint: try S3Endpoint(url: server.endpoint, allowHTTP: true), credentials: credentials, region: server.region)
        bucket = "cli-" + UUID().uuidString.prefix(13).lowercased()
        try client.createBucket(bucket)
    }

    /// The store's credentials as the AWS tools take them, and nothing else about the store.
    var credentials: [String: String] {
        ["AWS_ACCESS_KEY_ID": server.accessKey, "AWS_SECRET_ACCESS_KEY": server.secretKey, "AWS_REGION": server.region]
    }

    var storeArguments: [String] { ["--endpoint", server.endpoint, "--allow-http"] }

    func fetch(_ url: String) throws -> Int {
        let curl = try #require(ProcessResult.which("curl"))
        return Int(try ProcessResult.run(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", url]).stdoutText) ?? 0
    }

    /// A release folder `dist/Staging/1.0-7` made by `package` and `page`, its ipa holding `bytes` of random data.
    func makeRelease(_ folder: TemporaryFolder, bytes: Int) throws -> String {
        try folder.create(
            "App.app/Info.plist",
            Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.big</string>
                <key>CFBundleExecutable</key><string>App</string><key>CFBundleVersion</key><string>7</string>
                <key>CFBundleShortVersionString</key><string>1.0</string><key>CFBundleDisplayName</key><string>Big</string></dict></plist>
                """.utf8))
        var random = SystemRandomNumberGenerator()
        let words = (0..<(bytes + 7) / 8).map { _ in random.next() }
        try folder.create("App.app/payload.bin", words.withUnsafeBytes { Data($0.prefix(bytes)) })
        chmod(try folder.create("App.app/App", Data(repeating: 1, count: 64)), 0o755)
        let package = try AdhocBuildBinary.run(["package", folder.path("App.app"), "-o", folder.path("App.ipa")])
        try #require(package.status == 0, "\(package.stderrText)")
        let release = folder.path("dist/Staging/1.0-7")
        let page = try AdhocBuildBinary.run([
            "page", folder.path("App.ipa"), "--base-url", "https://ci.example.com/", "--environment", "Staging", "-o", release
        ])
        try #require(page.status == 0, "\(page.stderrText)")
        return release
    }

    @Test func aKillDuringAMultipartUploadLeavesNoObjectAndTheNextRunNoParts() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try makeRelease(folder, bytes: 40 << 20)
            let arguments = ["publish", release, "s3://\(bucket)/ios/"] + storeArguments
            let killed = try InterruptedRun.run(arguments, pauseAt: "upload:part 1 sent", signal: SIGKILL, extraEnvironment: credentials)
            #expect(killed.paused && killed.killedBySignal, "\(killed.stderr)")
            let prefix = "ios/Staging/1.0-7/"
            #expect(try client.headObject(bucket: bucket, key: prefix + "App.ipa") == nil, "half an ipa is visible")
            #expect(try client.headObject(bucket: bucket, key: prefix + "build.json") == nil)
            #expect(try !client.listMultipartUploads(bucket: bucket, prefix: prefix).isEmpty, "the kill left no upload to clean up")

            let again = try AdhocBuildBinary.run(arguments, extraEnvironment: credentials)
            #expect(again.status == 0, "\(again.stderrText)")
            #expect(try client.listMultipartUploads(bucket: bucket, prefix: prefix).isEmpty, "parts are left to be billed")
            let ipa = try #require(try client.headObject(bucket: bucket, key: prefix + "App.ipa"))
            #expect(ipa.size == (try FileManager.default.attributesOfItem(atPath: release + "/App.ipa")[.size] as? NSNumber)?.int64Value)
        }
    }

    /// What a CI log and the files it keeps would show: the page link, never the secret key; and the
    /// release folder is left as it was (publish writes nothing locally).
    @Test func theSecretKeyIsNeverPrintedOrWrittenAndTheReleaseFolderIsLeftAsItWas() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try makeRelease(folder, bytes: 1000)
            let before = folder.snapshot()
            let published = try AdhocBuildBinary.run(
                ["publish", release, "s3://\(bucket)/ios/"] + storeArguments, extraEnvironment: credentials)
            #expect(published.status == 0, "\(published.stderrText)")
            #expect(folder.snapshot() == before)
            let page = try #require(published.stdoutText.split(separator: "\n").first { $0.hasPrefix("  page:") }).dropFirst(11)
            #expect(try fetch(String(page)) == 200)
            #expect(!(published.stdoutText + published.stderrText).contains(server.secretKey))

            var wrong = credentials
            wrong["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-\(UUID().uuidString)"
            let refused = try AdhocBuildBinary.run(
                ["publish", release, "s3://\(bucket)/other/"] + storeArguments, extraEnvironment: wrong)
            #expect(refused.status == 1)
            #expect(refused.stderrText.split(separator: "\n").count == 1, "\(refused.stderrText)")
            #expect(refused.stderrText.contains("403"), "\(refused.stderrText)")
            #expect(!(refused.stdoutText + refused.stderrText).contains(wrong["AWS_SECRET_ACCESS_KEY"]!))
        }
    }

    @Test func releaseWithPublishReportsTheStoresLinksToTheCI() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let root = Fixtures.packageRoot.path
            let profile = folder.path("example.mobileprovision")
            let made = try ProcessResult.run("/bin/bash", [root + "/scripts/make-example-profile.sh", profile])
            try #require(made.status == 0)
            let outputs = folder.path("github-output")
            _ = FileManager.default.createFile(atPath: outputs, contents: nil)
            let result = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", root + "/examples/ShoutOut/ShoutOut.app", "--environments",
                    root + "/environments", "--out", folder.path("dist"), "--profile", profile, "--ci", "github",
                    "--publish", "s3://\(bucket)/ios/"
                ] + storeArguments,
                extraEnvironment: credentials.merging(["GITHUB_OUTPUT": outputs, "GITHUB_ACTIONS": "true"]) { $1 })
            #expect(result.status == 0, "\(result.stderrText)")
            let written = try String(contentsOfFile: outputs, encoding: .utf8)
            let pageLine = try #require(written.split(separator: "\n").first { $0.hasPrefix("page-url=") })
            let page = String(pageLine.dropFirst("page-url=".count))
            #expect(page.hasPrefix("\(server.endpoint)/\(bucket)/ios/Staging/1.4.0-"), "\(page)")
            #expect(page.contains("X-Amz-Signature="))
            #expect(try fetch(page) == 200)
            #expect(!written.contains(server.secretKey))
            // Published again: refused before anything is built, by what the store holds (DIST is a fresh one).
            let again = try AdhocBuildBinary.run(
                [
                    "release", "--env", "Staging", "--app", root + "/examples/ShoutOut/ShoutOut.app", "--environments",
                    root + "/environments", "--out", folder.path("dist2"), "--profile", profile, "--ci", "none", "--publish",
                    "s3://\(bucket)/ios/"
                ] + storeArguments, extraEnvironment: credentials)
            #expect(again.status == 1)
            #expect(again.stderrText.contains("s3://\(bucket)/ios/Staging/1.4.0-"), "\(again.stderrText)")
            #expect(again.stderrText.contains("is already published"), "\(again.stderrText)")
            #expect(!again.stderrText.contains("==> Package"))
        }
    }

    /// `prune s3://…` lists, then with `--yes` removes, what the same rules remove from a DIST, and
    /// rebuilds the store's index.
    @Test func pruneOnAStoreListsThenRemovesAndReindexes() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let release = try makeRelease(folder, bytes: 1000)
            let newer = folder.path("dist/Staging/1.0-8")
            try FileManager.default.copyItem(atPath: release, toPath: newer)
            for copy in [release, newer] {
                let published = try AdhocBuildBinary.run(
                    ["publish", copy, "s3://\(bucket)/ios/"] + storeArguments, extraEnvironment: credentials)
                #expect(published.status == 0, "\(published.stderrText)")
            }
            let arguments = ["prune", "s3://\(bucket)/ios/", "--keep", "1"] + storeArguments
            let dry = try AdhocBuildBinary.run(arguments, extraEnvironment: credentials)
            #expect(dry.status == 0, "\(dry.stderrText)")
            #expect(dry.stdoutText.hasPrefix("would remove Staging/1.0-7 (published "), "\(dry.stdoutText)")
            #expect(dry.stdoutText.hasSuffix("1 of 2 releases would be removed; run again with --yes to remove it\n"))
            #expect(try client.headObject(bucket: bucket, key: "ios/Staging/1.0-7/App.ipa") != nil)
            let applied = try AdhocBuildBinary.run(arguments + ["--yes"], extraEnvironment: credentials)
            #expect(applied.status == 0, "\(applied.stderrText)")
            #expect(applied.stdoutText.hasSuffix("s3://\(bucket)/ios/index.html: 1 release\n"), "\(applied.stdoutText)")
            #expect(try client.listObjects(bucket: bucket, prefix: "ios/Staging/1.0-7/").objects.isEmpty)
            #expect(try client.headObject(bucket: bucket, key: "ios/Staging/1.0-8/App.ipa") != nil)
        }
    }
}
