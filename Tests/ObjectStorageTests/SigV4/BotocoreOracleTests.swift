import Foundation
import TestSupport
import Testing

@testable import ObjectStorage

/// botocore's `S3SigV4Auth` and `S3SigV4QueryAuth` (PyPI) sign the same requests at the same moment:
/// the canonical request, string to sign, signature, headers and presigned URL must be the same bytes.
@Suite(
    .enabled(
        if: BotocoreOracle.isInstalled || Fixtures.isRequired,
        "botocore is not installed for python3 (make deps installs it); ADHOCBUILD_REQUIRE_FIXTURES=1 makes this a failure"))
struct BotocoreOracleTests {
    static let moment = Date(timeIntervalSince1970: 1_780_369_445)  // 2026-06-02T03:04:05Z
    static let plain = AWSCredentials(
        accessKeyID: "AKIDEXAMPLE1234567890", secretAccessKey: SecretText("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"), source: "test")
    static let temporary = AWSCredentials(
        accessKeyID: "ASIAEXAMPLE0987654321", secretAccessKey: SecretText("je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"),
        sessionToken: SecretText("IQoJb3JpZ2luX2VjEJ//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+token=="), source: "test")

    /// Requests as `S3Client` builds them, on both addressings.
    static func requests() throws -> [(name: String, request: SignableRequest, body: String?)] {
        let aws = S3Endpoint.aws(region: "eu-west-1")
        let local = try S3Endpoint(url: "http://127.0.0.1:8333", allowHTTP: true)
        func request(
            _ endpoint: S3Endpoint, _ method: String, _ key: String?, query: [QueryItem] = [], headers: [Header] = [], body: String? = nil
        )
            -> (SignableRequest, String?)
        {
            let (host, path) = endpoint.address(bucket: "release-bucket", key: key)
            let request = SignableRequest(
                method: method, scheme: endpoint.scheme, host: host, path: path, query: query, headers: headers,
                payload: body.map { PayloadHash.of(Array($0.utf8)) } ?? .empty)
            return (request, body)
        }
        let made: [(String, (SignableRequest, String?))] = [
            ("plain key, virtual-hosted", request(aws, "GET", "Staging/1.0-57/app.ipa")),
            ("space, plus, tilde", request(aws, "GET", "Staging/My App+Beta~1/a b.ipa")),
            ("unicode key", request(aws, "HEAD", "Staging/Größe/アプリ 🚀.ipa")),
            ("reserved characters", request(local, "GET", "odd/key?with#hash&amp=1;semi:colon,comma'quote\"(paren)*")),
            (
                "put with content type and body, path-style",
                request(
                    local, "PUT", "Staging/index.html", headers: [Header("Content-Type", "text/html; charset=utf-8")],
                    body: "<html>\n</html>\n")
            ),
            (
                "conditional put, folded header spaces",
                request(
                    aws, "PUT", "index.json",
                    headers: [Header("If-Match", "  \"abc   def\"  "), Header("Content-Type", "application/json")],
                    body: "{}")
            ),
            (
                "list with query parameters",
                request(
                    aws, "GET", nil,
                    query: [
                        QueryItem("list-type", "2"), QueryItem("prefix", "Staging/1.0 beta+/"), QueryItem("delimiter", "/"),
                        QueryItem("continuation-token", "1/AbC+dEf=="), QueryItem("encoding-type", "url")
                    ])
            ),
            (
                "multipart upload part",
                request(local, "PUT", "big.ipa", query: [QueryItem("partNumber", "3"), QueryItem("uploadId", "2~a/b+c=")])
            ),
            ("empty-valued query", request(aws, "POST", "big.ipa", query: [QueryItem("uploads", "")]))
        ]
        return made.map { ($0.0, $0.1.0, $0.1.1) }
    }

    @Test func headerSignaturesEqualBotocores() throws {
        var cases: [[String: Any?]] = []
        var ours: [SignedRequest] = []
        for (_, request, body) in try Self.requests() {
            for credentials in [Self.plain, Self.temporary] {
                for unsigned in [false, true] {
                    var request = request
                    if unsigned { request.payload = .unsigned }
                    ours.append(SigV4Signer(credentials: credentials, region: "eu-west-1").sign(request, at: Self.moment))
                    cases.append(BotocoreOracle.case(request, body: body, credentials, region: "eu-west-1", at: Self.moment, presign: nil))
                }
            }
        }
        let answers = try BotocoreOracle.run(cases)
        try #require(answers.count == ours.count)
        for (signed, answer) in zip(ours, answers) {
            #expect(signed.signature.canonicalRequest == answer["canonical_request"] as? String)
            #expect(signed.signature.stringToSign == answer["string_to_sign"] as? String)
            #expect(signed.signature.signature == answer["signature"] as? String)
            let headers = (answer["headers"] as? [[String]] ?? []).map { Header($0[0], $0[1]) }
            #expect(signed.request.headers == headers, "\(signed.request.path)")
            #expect(signed.authorization == headers.last?.value)
        }
    }

    @Test func presignedURLsEqualBotocores() throws {
        var cases: [[String: Any?]] = []
        var ours: [PresignedURL] = []
        for (_, request, _) in try Self.requests() where request.method == "GET" || request.method == "HEAD" {
            for credentials in [Self.plain, Self.temporary] {
                for expiry in [1, 3600, SigV4Signer.maximumExpiry] {
                    ours.append(
                        try SigV4Signer(credentials: credentials, region: "eu-west-1").presign(request, at: Self.moment, expiry: expiry))
                    cases.append(
                        BotocoreOracle.case(request, body: nil, credentials, region: "eu-west-1", at: Self.moment, presign: expiry))
                }
            }
        }
        let answers = try BotocoreOracle.run(cases)
        try #require(answers.count == ours.count && ours.count >= 30)
        for (presigned, answer) in zip(ours, answers) {
            #expect(presigned.signature.canonicalRequest == answer["canonical_request"] as? String)
            #expect(presigned.signature.signature == answer["signature"] as? String)
            #expect(presigned.url == answer["url"] as? String)
        }
    }
}

/// Runs `Tests/Oracles/sigv4_oracle.py`.
enum BotocoreOracle {
    static let script = Fixtures.packageRoot.appendingPathComponent("Tests/Oracles/sigv4_oracle.py").path

    static let isInstalled: Bool = {
        guard let python = ProcessResult.which("python3") else { return false }
        return (try? ProcessResult.run(python, ["-c", "import botocore.auth"]).status) == 0
    }()

    static func `case`(
        _ request: SignableRequest, body: String?, _ credentials: AWSCredentials, region: String, at date: Date, presign: Int?
    ) -> [String: Any?] {
        [
            "method": request.method, "url": "\(request.scheme)://\(request.host)\(request.path)",
            "query": request.query.map { [$0.name, $0.value] }, "headers": request.headers.map { [$0.name, $0.value] },
            "body": body, "sign_payload": request.payload != .unsigned, "access_key": credentials.accessKeyID,
            "secret_key": credentials.secretAccessKey.reveal(), "token": credentials.sessionToken?.reveal(), "region": region,
            "timestamp": AmzDate(date).timestamp, "presign_expires": presign
        ].mapValues { $0 ?? NSNull() }
    }

    static func run(_ cases: [[String: Any?]]) throws -> [[String: Any]] {
        let python = try #require(ProcessResult.which("python3"))
        let input = try JSONSerialization.data(withJSONObject: cases.map { $0.mapValues { $0 ?? NSNull() } })
        let run = try ProcessResult.run(python, [script], input: input)
        try #require(run.status == 0, "the botocore oracle failed: \(run.stderrText)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [[String: Any]])
    }
}
