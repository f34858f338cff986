import Foundation
import SystemSupport
import TestSupport
import Testing

@testable import ObjectStorage

/// What the signer guarantees beyond botocore's agreement: AWS's published example, the 7-day limit,
/// and encoding rules.
struct SigV4SignerTests {
    static let example = AWSCredentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: SecretText("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), source: "AWS docs")
    /// 2013-05-24T00:00:00Z, the moment of AWS's documented examples.
    static let moment = Date(timeIntervalSince1970: 1_369_353_600)

    @Test func matchesAWSsPublishedPresignedURLExample() throws {
        // "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", Amazon S3 API reference.
        let request = SignableRequest(method: "GET", scheme: "https", host: "examplebucket.s3.amazonaws.com", path: "/test.txt")
        let presigned = try SigV4Signer(credentials: Self.example, region: "us-east-1").presign(request, at: Self.moment, expiry: 86400)
        #expect(presigned.signature.signature == "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        #expect(presigned.expires == Self.moment.addingTimeInterval(86400))
    }

    @Test func matchesAWSsPublishedGetObjectExample() {
        // "Example: GET Object" of the header-signing page: a Range header, an empty payload.
        let request = SignableRequest(
            method: "GET", scheme: "https", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
            headers: [Header("Range", "bytes=0-9")])
        let signed = SigV4Signer(credentials: Self.example, region: "us-east-1").sign(request, at: Self.moment)
        #expect(signed.signature.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func linksLongerThanSevenDaysAreRefused() throws {
        let signer = SigV4Signer(credentials: Self.example, region: "us-east-1")
        let request = SignableRequest(method: "GET", scheme: "https", host: "h", path: "/k")
        _ = try signer.presign(request, at: Self.moment, expiry: 604_800)
        for expiry in [604_801, 0, -5] {
            let error = expectDiagnostic(ObjectStorageProblem.self) { try signer.presign(request, at: Self.moment, expiry: expiry) }
            #expect(error?.code == .storage(.invalidArgument))
            #expect(error?.message == "link lifetime \(expiry) s is not between 1 s and 7 days (604800 s), the most SigV4 allows")
        }
    }

    @Test func pathsAreEncodedOnceKeepingSlashes() {
        #expect(URIEncoding.path("a b/c+d~e/%41/ü") == "a%20b/c%2Bd~e/%2541/%C3%BC")
        #expect(URIEncoding.component("a/b c+=&") == "a%2Fb%20c%2B%3D%26")
        #expect(URIEncoding.path("a//./b") == "a//./b")
    }

    @Test func amzDateIsUTC() {
        #expect(AmzDate(Date(timeIntervalSince1970: 1_780_369_445.9)).timestamp == "20260602T030405Z")
        #expect(AmzDate(Date(timeIntervalSince1970: 0)).day == "19700101")
    }
}
