import Foundation
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 34, retention in a store: `removeRelease` removes one release folder (objects and
/// unfinished multipart uploads) and nothing beside it, against a real store (SeaweedFS).
@Suite(SeaweedFS.enabled) struct ReleaseStoreRemovalTests {
    let client: S3Client
    let store: ReleaseStore

    init() throws {
        let server = try SeaweedFS.shared()
        let credentials = AWSCredentials(accessKeyID: server.accessKey, secretAccessKey: SecretText(server.secretKey), source: "test")
        client = S3Client(endpoint: try S3Endpoint(url: server.endpoint, allowHTTP: true), credentials: credentials, region: server.region)
        let bucket = "prune-" + UUID().uuidString.prefix(13).lowercased()
        try client.createBucket(bucket)
        store = ReleaseStore(client: client, location: S3Location(bucket: bucket, prefix: "builds/ios/"), links: .presigned(ttl: 3600))
    }

    var bucket: String { store.location.bucket }

    @Test func removingAReleaseRemovesItsObjectsAndUploadsAndNothingElse() throws {
        let removed = ["build.json", "index.html", "App.ipa", "icons/icon 🚀.png", "manifest.plist"].map {
            "builds/ios/Staging/1.0-57/" + $0
        }
        let others = [
            "builds/ios/Staging/1.0-570/build.json", "builds/ios/Staging/1.0-58/build.json", "builds/ios/Staging/latest/build.json",
            "builds/ios/QA/1.0-57/build.json", "builds/ios/index.html", "Staging/1.0-57/build.json"
        ]
        for key in removed + others {
            try client.putObject(bucket: bucket, key: key, body: .data(Data(key.utf8)), contentType: "application/octet-stream")
        }
        let unfinished = try client.createMultipartUpload(bucket: bucket, key: "builds/ios/Staging/1.0-57/Big.ipa")
        _ = try client.uploadPart(
            bucket: bucket, key: "builds/ios/Staging/1.0-57/Big.ipa", uploadID: unfinished, number: 1, body: .data(Data(count: 1024)))
        let neighbour = try client.createMultipartUpload(bucket: bucket, key: "builds/ios/Staging/1.0-570/Big.ipa")

        try store.removeRelease(environment: "Staging", name: "1.0-57")

        #expect(Set(try client.listObjects(bucket: bucket).objects.map(\.key)) == Set(others))
        #expect(try client.listMultipartUploads(bucket: bucket).map(\.uploadID) == [neighbour])
        // Gone already: no error, nothing else touched.
        try store.removeRelease(environment: "Staging", name: "1.0-57")
        #expect(Set(try client.listObjects(bucket: bucket).objects.map(\.key)) == Set(others))
    }

    @Test func aNameThatIsNotOneReleaseFolderIsRefusedBeforeAnythingIsRemoved() throws {
        let keys = ["builds/ios/Staging/1.0-1/build.json", "builds/ios/Staging/latest/build.json"]
        for key in keys { try client.putObject(bucket: bucket, key: key, body: .data(Data("{}".utf8)), contentType: "application/json") }
        for (environment, name) in [
            ("Staging", ""), ("Staging", "latest"), ("Staging", ".."), ("", "1.0-1"), ("Staging/1.0-1", "x"), ("Staging", "a/b")
        ] {
            let refused = expectDiagnostic(ObjectStorageProblem.self) { try store.removeRelease(environment: environment, name: name) }
            #expect(refused?.code == .storage(.invalidArgument), "\(environment) \(name)")
        }
        #expect(Set(try client.listObjects(bucket: bucket).objects.map(\.key)) == Set(keys))
    }
}
