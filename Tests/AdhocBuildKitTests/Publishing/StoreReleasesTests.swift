import Foundation
import Manifest
import ObjectStorage
import SystemSupport
import TestSupport
import Testing

@testable import AdhocBuildKit

/// Issue 34: the releases a store holds are read from the store (its listing and each `build.json`),
/// against a real SeaweedFS.
@Suite(SeaweedFS.enabled)
struct StoreReleasesTests {
    @Test func releasesAreTheBuildJSONFilesTwoFoldersBelowThePrefix() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        let staging = try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "57", date: "2026-06-01T10:00:00Z"))
        let production = try bucket.putRelease(StoreTestBucket.info("Production", "1.0", "56", date: "2026-05-30T10:00:00Z"))
        let json = try StoreTestBucket.info("Staging", "9.9", "9", date: "2026-06-01T10:00:00Z").jsonData()
        // Not releases: a copy in latest, one being assembled, one too deep, one without build.json,
        // and one outside the prefix.
        for relative in [
            "Staging/latest/build.json", "Staging/.1.0-58/build.json", ".hidden/1.0-1/build.json", "Staging/1.0-57/x/build.json"
        ] {
            try bucket.put(relative, json)
        }
        try bucket.put("Staging/1.0-59/index.html", Data("page".utf8))
        try bucket.client().putObject(bucket: bucket.bucket, key: "other/Staging/1.0-1/build.json", body: .data(json))

        let (releases, problems) = try store.releases()
        #expect(releases.map(\.folder) == [production, staging])
        #expect(releases.map(\.info.build) == ["56", "57"])
        #expect(problems.isEmpty)
        #expect(try store.isPublished(environment: "Staging", name: "1.0-57"))
        #expect(try !store.isPublished(environment: "Staging", name: "1.0-59"))
        #expect(try !store.isPublished(environment: "Staging", name: "1.0-60"))
    }

    @Test func anUnreadableBuildJSONIsAProblemNamingItsObject() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "57", date: "2026-06-01T10:00:00Z"))
        try bucket.put("Staging/1.0-58/build.json", Data("{\"version\": 3".utf8))
        try bucket.put("Staging/1.0-59/build.json", Data("[]".utf8))

        let (releases, problems) = try store.releases()
        #expect(releases.map(\.folder) == ["Staging/1.0-57"])
        #expect(problems.count == 2)
        #expect(problems[0].hasPrefix("s3://\(bucket.bucket)/builds/ios/Staging/1.0-58/build.json: "))
        #expect(problems[1].hasPrefix("s3://\(bucket.bucket)/builds/ios/Staging/1.0-59/build.json: "))
    }

    @Test func aBuildJSONReadBeforeIsFetchedAgainOnlyWhenItsEntityTagChanged() throws {
        let bucket = try StoreTestBucket()
        let store = try bucket.store()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "57", date: "2026-06-01T10:00:00Z"))
        let reads = ReleaseStore.BuildInfoReads([:])
        let list = { try bucket.client().listObjects(bucket: bucket.bucket, prefix: StoreTestBucket.prefix) }
        #expect(try store.storedReleases(in: list(), reads: reads).releases.map(\.info.build) == ["57"])
        let key = try #require(reads.value.keys.first)
        #expect(reads.value.count == 1)
        #expect(key.hasSuffix(" builds/ios/Staging/1.0-57/build.json"))

        // What was read before is taken as it was, not fetched again...
        reads.withLock { $0[key] = .problem("read before") }
        #expect(try store.storedReleases(in: list(), reads: reads).problems == ["read before"])
        // ...until the object changes.
        try bucket.put(
            "Staging/1.0-57/build.json", try StoreTestBucket.info("Staging", "1.0", "58", date: "2026-06-01T10:00:00Z").jsonData())
        #expect(try store.storedReleases(in: list(), reads: reads).releases.map(\.info.build) == ["58"])
    }

    @Test func aStoreThatRefusesTheRequestsIsAFailureNotAnEmptyList() throws {
        let bucket = try StoreTestBucket()
        try bucket.putRelease(StoreTestBucket.info("Staging", "1.0", "57", date: "2026-06-01T10:00:00Z"))
        let credentials = AWSCredentials(accessKeyID: bucket.server.accessKey, secretAccessKey: SecretText("wrong"), source: "test")
        let client = S3Client(
            endpoint: try S3Endpoint(url: bucket.server.endpoint, allowHTTP: true), credentials: credentials, region: bucket.server.region)
        let store = ReleaseStore(
            client: client, location: S3Location(bucket: bucket.bucket, prefix: StoreTestBucket.prefix), links: .presigned(ttl: 60))
        let failure = expectDiagnostic(ObjectStorageProblem.self) { try store.releases() }
        #expect(failure?.code == .storage(.accessDenied))
    }
}
