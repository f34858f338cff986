import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import ObjectStorage

/// The S3 operations against a real store (SeaweedFS's S3 gateway on 127.0.0.1), which checks every
/// signature and refuses anonymous, tampered and expired requests.
@Suite(SeaweedFS.enabled)
struct SeaweedFSTests {
    let server: SeaweedFS
    let client: S3Client
    let bucket: String

    init() throws {
        server = try SeaweedFS.shared()
        client = try Self.client(server)
        bucket = "test-" + UUID().uuidString.prefix(13).lowercased()
        try client.createBucket(bucket)
    }

    static func client(
        _ server: SeaweedFS, secret: String? = nil, options: S3Client.Options = S3Client.Options(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws -> S3Client {
        let credentials = AWSCredentials(
            accessKeyID: server.accessKey, secretAccessKey: SecretText(secret ?? server.secretKey), source: "test")
        let endpoint = try S3Endpoint(url: server.endpoint, allowHTTP: true)
        return S3Client(
            endpoint: endpoint, credentials: credentials, region: server.region,
            http: HTTPClient(),
            options: options, clock: clock)
    }

    static func curl(_ url: String, head: Bool = false) throws -> (status: String, body: String) {
        let curl = try #require(ProcessResult.which("curl"))
        let run = try ProcessResult.run(curl, ["-s", "-w", "\n%{http_code}"] + (head ? ["-I"] : []) + [url])
        let text = run.stdoutText
        let split = text.lastIndex(of: "\n").map { (String(text[text.index(after: $0)...]), String(text[..<$0])) } ?? (text, "")
        return (split.0, split.1)
    }

    @Test func putHeadGetListDeleteRoundTrip() throws {
        let keys = [
            "Staging/1.0-57/app.ipa", "Staging/1.0-57/My App+Beta~1 (ü).plist", "Staging/1.0-58/icon 🚀.png", "Release/2.0-1/index.html",
            "top.json"
        ]
        var etags: [String: String] = [:]
        for (index, key) in keys.enumerated() {
            etags[key] = try client.putObject(
                bucket: bucket, key: key, body: .data(Data("body \(index) of \(key)".utf8)), contentType: "text/html")
        }
        let key = keys[1]
        let info = try #require(try client.headObject(bucket: bucket, key: key))
        #expect(info.etag == etags[key])
        #expect(info.size == Int64("body 1 of \(key)".utf8.count))
        #expect(info.contentType == "text/html")
        let got = try client.getObject(bucket: bucket, key: key)
        #expect(String(decoding: got.data, as: UTF8.self) == "body 1 of \(key)")
        #expect(try client.headObject(bucket: bucket, key: "Staging/none") == nil)
        let missing = expectDiagnostic(ObjectStorageProblem.self) { try client.getObject(bucket: bucket, key: "Staging/none") }
        #expect(missing?.code == .storage(.notFound))
        #expect(missing?.file == "GET s3://\(bucket)/Staging/none")

        // Pages of two, followed to the end.
        let all = try client.listObjects(bucket: bucket, pageSize: 2)
        #expect(all.objects.map(\.key) == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(all.objects.first { $0.key == key }?.etag == etags[key])
        let staging = try client.listObjects(bucket: bucket, prefix: "Staging/", delimiter: "/")
        #expect(staging.commonPrefixes == ["Staging/1.0-57/", "Staging/1.0-58/"])
        #expect(staging.objects.isEmpty)

        try client.deleteObject(bucket: bucket, key: "top.json")
        try client.deleteObject(bucket: bucket, key: "top.json")
        try client.deleteObjects(bucket: bucket, keys: Array(keys.prefix(4)))
        #expect(try client.listObjects(bucket: bucket).objects.isEmpty)
    }

    @Test func getWritesLargeObjectsToAFileAndSignsFilePayloads() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            var generator = SeededGenerator(seed: 7)
            let bytes = Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let source = try folder.write("source.bin", bytes)
            let etag = try client.uploadFile(bucket: bucket, key: "big/source.bin", path: source)
            let target = folder.path("copy.bin")
            let info = try client.getObject(bucket: bucket, key: "big/source.bin", to: target)
            #expect(info.etag == etag)
            #expect(FileManager.default.contents(atPath: target) == bytes)
            _ = try client.putObject(bucket: bucket, key: "empty", body: .none)
            _ = try client.getObject(bucket: bucket, key: "empty", to: folder.path("empty"))
            #expect(FileManager.default.contents(atPath: folder.path("empty")) == Data())
        }
    }

    @Test func multipartUploadOfAFileLargerThanOnePart() throws {
        let small = S3Client.Options(partSize: S3Client.minimumPartSize, concurrency: 3, multipartThreshold: S3Client.minimumPartSize)
        let client = try Self.client(server, options: small)
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            var generator = SeededGenerator(seed: 11)
            let bytes = Data((0..<(S3Client.minimumPartSize * 2 + 123_457)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let source = try folder.write("app.ipa", bytes)
            let etag: String
            do {
                etag = try client.uploadFile(bucket: bucket, key: "Staging/1.0-57/app.ipa", path: source)
            } catch {
                Issue.record("\(error); weed's log ends: \(server.log())")
                throw error
            }
            // A multipart object's ETag is the MD5 of the parts' MD5s, then "-3" for three parts.
            #expect(etag.hasSuffix("-3\""), "\(etag)")
            let (data, info) = try client.getObject(bucket: bucket, key: "Staging/1.0-57/app.ipa")
            #expect(data == bytes)
            #expect(info.size == Int64(bytes.count))
            #expect(try client.listMultipartUploads(bucket: bucket).isEmpty)
        }
    }

    @Test func aFailedMultipartUploadIsAbortedAndLeavesNothing() throws {
        let small = S3Client.Options(partSize: S3Client.minimumPartSize, concurrency: 2, multipartThreshold: S3Client.minimumPartSize)
        let client = try Self.client(server, options: small)
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let source = try folder.write("short.ipa", Data(repeating: 7, count: S3Client.minimumPartSize + 10))
            // Claims three parts' worth: the third part's read fails after the first parts were sent.
            let error = expectDiagnostic(ObjectStorageProblem.self) {
                try client.uploadFile(
                    bucket: bucket, key: "broken.ipa", path: source, size: Int64(S3Client.minimumPartSize * 3),
                    contentType: "application/octet-stream")
            }
            #expect(error?.code == .storage(.file))
            #expect(error?.file == source)
            #expect(try client.listMultipartUploads(bucket: bucket).isEmpty)
            #expect(try client.headObject(bucket: bucket, key: "broken.ipa") == nil)

            // The pieces on their own: an upload is listed until it is aborted.
            let id = try client.createMultipartUpload(bucket: bucket, key: "pending.ipa")
            _ = try client.uploadPart(bucket: bucket, key: "pending.ipa", uploadID: id, number: 1, body: .data(Data("part".utf8)))
            #expect(try client.listMultipartUploads(bucket: bucket).map(\.uploadID) == [id])
            try client.abortMultipartUpload(bucket: bucket, key: "pending.ipa", uploadID: id)
            #expect(try client.listMultipartUploads(bucket: bucket).isEmpty)
        }
    }

    /// The store itself refuses a link valid for more than 7 days (400), which is why the signer refuses to
    /// make one: botocore, which signs any lifetime, presigns 7 days and 7 days and a second at the same time.
    @Test(.enabled(if: BotocoreOracle.isInstalled)) func theStoreRefusesALinkValidForMoreThanSevenDays() throws {
        _ = try client.putObject(bucket: bucket, key: "Staging/app.ipa", body: .data(Data("ipa".utf8)))
        let address = client.endpoint.address(bucket: bucket, key: "Staging/app.ipa")
        let request = SignableRequest(
            method: "GET", scheme: client.endpoint.scheme, host: address.host, path: address.path, query: [], headers: [],
            payload: .unsigned)
        let credentials = AWSCredentials(accessKeyID: server.accessKey, secretAccessKey: SecretText(server.secretKey), source: "test")
        let now = Date()
        let answers = try BotocoreOracle.run(
            [SigV4Signer.maximumExpiry, SigV4Signer.maximumExpiry + 1].map {
                BotocoreOracle.case(request, body: nil, credentials, region: server.region, at: now, presign: $0)
            })
        let urls = try answers.map { try #require($0["url"] as? String) }
        #expect(try Self.curl(urls[0]) == ("200", "ipa"))
        #expect(try Self.curl(urls[1]).status == "400")
        #expect(throws: Diagnostic.self) {
            _ = try client.presignedGetURL(bucket: bucket, key: "Staging/app.ipa", expiry: SigV4Signer.maximumExpiry + 1)
        }
    }

    @Test func presignedGetWorksWithoutCredentialsAndRefusesTamperingAndExpiry() throws {
        _ = try client.putObject(
            bucket: bucket, key: "Staging/My App.plist", body: .data(Data("manifest".utf8)), contentType: "application/xml")
        let link = try client.presignedGetURL(bucket: bucket, key: "Staging/My App.plist", expiry: 300)
        #expect(try Self.curl(link.url) == ("200", "manifest"))
        // The method is part of the signature: a HEAD needs a URL presigned for HEAD.
        #expect(try Self.curl(link.url, head: true).status.hasPrefix("403"))
        let head = try client.presignedURL(method: "HEAD", bucket: bucket, key: "Staging/My App.plist", expiry: 300)
        #expect(try Self.curl(head.url, head: true).status == "200")

        var tampered = link.url
        let last = tampered.removeLast()
        tampered.append(last == "0" ? "1" : "0")
        #expect(try Self.curl(tampered).status == "403")
        let otherKey = link.url.replacingOccurrences(of: "My%20App.plist", with: "My%20App.plisT")
        #expect(try Self.curl(otherKey).status == "403")

        let short = try client.presignedGetURL(bucket: bucket, key: "Staging/My App.plist", expiry: 1)
        Thread.sleep(forTimeInterval: 2.5)
        let expired = try Self.curl(short.url)
        #expect(expired.status == "403")
        #expect(expired.body.contains("expired"))

        let anonymous = try Self.curl("\(server.endpoint)/\(bucket)/Staging/My%20App.plist")
        #expect(anonymous.status == "403")
    }

    @Test func conditionalPutsRefuseAStaleETag() throws {
        let first = try client.putObject(bucket: bucket, key: "index.json", body: .data(Data("1".utf8)), condition: .ifAbsent)
        let second = try client.putObject(bucket: bucket, key: "index.json", body: .data(Data("2".utf8)), condition: .ifMatch(first))
        #expect(first != second)
        let stale = expectDiagnostic(ObjectStorageProblem.self) {
            try client.putObject(bucket: bucket, key: "index.json", body: .data(Data("3".utf8)), condition: .ifMatch(first))
        }
        #expect(stale?.code == .storage(.preconditionFailed))
        #expect(stale?.description.hasPrefix("PUT s3://\(bucket)/index.json: HTTP 412") == true, "\(stale?.description ?? "")")
        let exists = expectDiagnostic(ObjectStorageProblem.self) {
            try client.putObject(bucket: bucket, key: "index.json", body: .data(Data("4".utf8)), condition: .ifAbsent)
        }
        #expect(exists?.code == .storage(.preconditionFailed))
        #expect(String(decoding: try client.getObject(bucket: bucket, key: "index.json").data, as: UTF8.self) == "2")
    }

    @Test func aWrongSecretIsRefusedAndNotQuoted() throws {
        let secret = "not-the-secret-\(UUID().uuidString)"
        let wrong = try Self.client(server, secret: secret)
        let error = expectDiagnostic(ObjectStorageProblem.self) {
            try wrong.putObject(bucket: bucket, key: "x", body: .data(Data("x".utf8)))
        }
        #expect(error?.code == .storage(.accessDenied))
        #expect(error?.report.contains(secret) == false)
        #expect(error?.report.contains(server.secretKey) == false)
    }

    @Test func signaturesFromASkewedClockAreRefused() throws {
        let skewed = try Self.client(server, clock: { Date().addingTimeInterval(-3600) })
        let error = expectDiagnostic(ObjectStorageProblem.self) { _ = try skewed.headObject(bucket: bucket, key: "x") }
        #expect(error?.code == .storage(.accessDenied))
    }
}
