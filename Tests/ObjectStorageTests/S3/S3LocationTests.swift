import SystemSupport
import TestSupport
import Testing

@testable import ObjectStorage

/// `s3://BUCKET/PREFIX/` and endpoint URLs are read as the AWS CLI reads them; a bad one is named.
struct S3LocationTests {
    @Test func parsesBucketAndFolderPrefix() throws {
        #expect(try S3Location(parsing: "s3://releases") == S3Location(bucket: "releases", prefix: ""))
        #expect(try S3Location(parsing: "s3://releases/") == S3Location(bucket: "releases", prefix: ""))
        #expect(try S3Location(parsing: "s3://releases/ios/beta") == S3Location(bucket: "releases", prefix: "ios/beta/"))
        let location = try S3Location(parsing: "s3://my_Legacy.bucket-1/ios/")
        #expect(location.key("Staging/1.0-57/app.ipa") == "ios/Staging/1.0-57/app.ipa")
        #expect(location.appending("Staging").description == "s3://my_Legacy.bucket-1/ios/Staging/")
    }

    @Test func badLocationsAreNamed() {
        let cases: [(String, String)] = [
            ("https://bucket/x", "must start with s3://"), ("s3://", "bucket name is missing"), ("s3:///prefix", "bucket name is missing"),
            ("s3://ab", "3 to 255"), ("s3://bad bucket/", "only letters"), ("s3://bucket/a//b/", "empty segment"),
            ("s3://bucket/a/../b", "'..' segment")
        ]
        for (text, why) in cases {
            let error = expectDiagnostic(ObjectStorageProblem.self) { try S3Location(parsing: text) }
            #expect(error?.code == .storage(.invalidArgument))
            #expect(error?.message.hasPrefix("'\(text)' is not an s3:// location") == true, "\(text)")
            #expect(error?.message.contains(why) == true, "\(text): \(error?.message ?? "")")
        }
    }

    @Test func endpointsAndAddressing() throws {
        let local = try S3Endpoint(url: "http://127.0.0.1:8333/", allowHTTP: true)
        #expect(local.host == "127.0.0.1:8333")
        #expect(local.address(bucket: "builds", key: "a b/c+d.ipa") == ("127.0.0.1:8333", "/builds/a%20b/c%2Bd.ipa"))
        #expect(local.address(bucket: "builds", key: nil) == ("127.0.0.1:8333", "/builds"))
        let aws = S3Endpoint.aws(region: "eu-west-1")
        #expect(aws.address(bucket: "builds", key: "x/y") == ("builds.s3.eu-west-1.amazonaws.com", "/x/y"))
        #expect(aws.address(bucket: "builds", key: nil) == ("builds.s3.eu-west-1.amazonaws.com", "/"))
        // A dotted bucket over HTTPS would not match the certificate; an upper-case one is no host name.
        #expect(aws.address(bucket: "my.builds", key: "x") == ("s3.eu-west-1.amazonaws.com", "/my.builds/x"))
        #expect(aws.address(bucket: "Builds", key: "x") == ("s3.eu-west-1.amazonaws.com", "/Builds/x"))
        let forcedPath = try S3Endpoint(url: "https://S3.Example.com:443", addressing: .path)
        #expect(forcedPath.host == "s3.example.com")
        #expect(forcedPath.address(bucket: "builds", key: "k") == ("s3.example.com", "/builds/k"))
        #expect(try S3Endpoint(url: "https://minio.lan:9000").address(bucket: "builds", key: "k") == ("builds.minio.lan:9000", "/k"))
        #expect(try S3Endpoint(url: "https://localhost:9000").address(bucket: "builds", key: "k") == ("localhost:9000", "/builds/k"))
    }

    @Test func badEndpointsAreNamed() {
        let cases: [(String, Bool, String)] = [
            ("http://127.0.0.1:8333", false, "plain http://"), ("ftp://host", true, "must be https://"),
            ("host:9000", true, "is not a URL"),
            ("https://user:pw@host", true, "user name or password"), ("https://host/path", true, "without '/'"),
            ("https://host:99999", true, "bad port '99999'"), ("https://", true, "has no host")
        ]
        for (text, allowHTTP, why) in cases {
            let error = expectDiagnostic(ObjectStorageProblem.self) { try S3Endpoint(url: text, allowHTTP: allowHTTP) }
            #expect(error?.message.hasPrefix("endpoint '\(text)'") == true, "\(text)")
            #expect(error?.message.contains(why) == true, "\(text): \(error?.message ?? "")")
        }
        let http = expectDiagnostic(ObjectStorageProblem.self) { try S3Endpoint(url: "http://store:80") }
        #expect(http?.hint?.contains("--allow-http") == true)
    }
}
