import Crypto
import Foundation
import SystemSupport

/// AWS Signature Version 4 for S3, as botocore's `S3SigV4Auth` and `S3SigV4QueryAuth` compute it:
/// an `Authorization` header, or a presigned URL.
///
/// S3's rules: the path is signed as it is sent (encoded once, never normalised); query names and
/// values are encoded and sorted; header values are trimmed with inner runs of spaces made one; a
/// presigned URL signs `host` (and any header given), carries `UNSIGNED-PAYLOAD`, and puts a session
/// token in the signed query. The secret key is read only here, to derive the signing key.
public struct SigV4Signer: Sendable {
    /// The longest a presigned URL can be valid: 7 days, SigV4's limit.
    public static let maximumExpiry = 604_800

    public let credentials: AWSCredentials
    public let region: String
    public let service: String

    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// `request` signed with headers at `date`: `X-Amz-Date`, `X-Amz-Content-SHA256`,
    /// `X-Amz-Security-Token` (with a session token) and `Authorization` added, replacing any given.
    public func sign(_ request: SignableRequest, at date: Date) -> SignedRequest {
        let time = AmzDate(date)
        var signed = request
        let replaced: Set<String> = ["authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]
        signed.headers.removeAll { replaced.contains($0.name.lowercased()) }
        signed.headers.append(Header("X-Amz-Date", time.timestamp))
        if let token = credentials.sessionToken { signed.headers.append(Header("X-Amz-Security-Token", token.reveal())) }
        signed.headers.append(Header("X-Amz-Content-SHA256", request.payload.value))

        let headers = Self.canonicalHeaders(signed)
        let canonical = [
            signed.method, signed.path, Self.canonicalQuery(signed.query), headers.text + "\n", headers.names, request.payload.value
        ].joined(separator: "\n")
        let details = details(canonicalRequest: canonical, time: time)
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope(time)), SignedHeaders=\(headers.names), "
            + "Signature=\(details.signature)"
        signed.headers.append(Header("Authorization", authorization))
        return SignedRequest(request: signed, signature: details, authorization: authorization)
    }

    /// A URL that lets anyone holding it make `request` (a GET, usually) for `expiry` seconds from
    /// `date`, with no credentials: the query's parameters, then `X-Amz-Algorithm`, `-Credential`,
    /// `-Date`, `-Expires`, `-SignedHeaders`, `-Security-Token` (with a session token) and `-Signature`.
    ///
    /// Throws when `expiry` is not between 1 second and 7 days (``maximumExpiry``).
    public func presign(_ request: SignableRequest, at date: Date, expiry: Int) throws -> PresignedURL {
        guard (1...Self.maximumExpiry).contains(expiry) else {
            throw Diagnostic.storage(
                .invalidArgument,
                "link lifetime \(expiry) s is not between 1 s and 7 days (\(Self.maximumExpiry) s), the most SigV4 allows")
        }
        let time = AmzDate(date)
        let headers = Self.canonicalHeaders(request)
        var authQuery = [
            QueryItem("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            QueryItem("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(time))"),
            QueryItem("X-Amz-Date", time.timestamp),
            QueryItem("X-Amz-Expires", String(expiry)),
            QueryItem("X-Amz-SignedHeaders", headers.names)
        ]
        if let token = credentials.sessionToken { authQuery.append(QueryItem("X-Amz-Security-Token", token.reveal())) }
        let query = request.query + authQuery
        let canonical = [
            request.method, request.path, Self.canonicalQuery(query), headers.text + "\n", headers.names, PayloadHash.unsigned.value
        ].joined(separator: "\n")
        let details = details(canonicalRequest: canonical, time: time)
        var presigned = request
        presigned.query = query + [QueryItem("X-Amz-Signature", details.signature)]
        return PresignedURL(url: presigned.url, signature: details, expires: date.addingTimeInterval(TimeInterval(expiry)))
    }

    /// `service/region/date/aws4_request` without the access key: `20260102/us-east-1/s3/aws4_request`.
    func scope(_ time: AmzDate) -> String { "\(time.day)/\(region)/\(service)/aws4_request" }

    private func details(canonicalRequest: String, time: AmzDate) -> SigV4Signature {
        let stringToSign = ["AWS4-HMAC-SHA256", time.timestamp, scope(time), Digest.sha256(Array(canonicalRequest.utf8)).hexString].joined(
            separator: "\n")
        let dateKey = HMAC.sha256(key: Array(("AWS4" + credentials.secretAccessKey.reveal()).utf8), Array(time.day.utf8))
        let regionKey = HMAC.sha256(key: dateKey, Array(region.utf8))
        let serviceKey = HMAC.sha256(key: regionKey, Array(service.utf8))
        let signingKey = HMAC.sha256(key: serviceKey, Array("aws4_request".utf8))
        let signature = HMAC.sha256(key: signingKey, Array(stringToSign.utf8)).hexString
        return SigV4Signature(canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature)
    }

    /// Headers that are never signed (proxies and clients change them).
    private static let unsigned: Set<String> = ["expect", "user-agent", "x-amzn-trace-id"]

    /// The canonical header lines (`name:value`, sorted by name, values of one name joined by `,`)
    /// and the signed header names (`host;x-amz-date`).
    static func canonicalHeaders(_ request: SignableRequest) -> (text: String, names: String) {
        var values: [String: [String]] = [:]
        for header in request.headers {
            let name = header.name.lowercased()
            guard !unsigned.contains(name) else { continue }
            values[name, default: []].append(header.value.split(whereSeparator: \.isWhitespace).joined(separator: " "))
        }
        if values["host"] == nil { values["host"] = [request.host] }
        let names = values.keys.sorted(by: UTF8Order.precedes)
        let text = names.map { "\($0):" + values[$0, default: []].joined(separator: ",") }.joined(separator: "\n")
        return (text, names.joined(separator: ";"))
    }

    /// The canonical query: each name and value encoded, pairs sorted by name then value.
    static func canonicalQuery(_ query: [QueryItem]) -> String {
        query.map { (URIEncoding.component($0.name), URIEncoding.component($0.value)) }
            .sorted { $0.0 == $1.0 ? UTF8Order.precedes($0.1, $1.1) : UTF8Order.precedes($0.0, $1.0) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }
}

/// The intermediate texts of one signature, for tests and for debugging a refused request (none
/// holds the secret key).
public struct SigV4Signature: Sendable, Equatable {
    public let canonicalRequest: String
    public let stringToSign: String
    /// Lower-case hexadecimal HMAC-SHA256.
    public let signature: String
}

/// A request signed with headers: send ``request`` as it is.
public struct SignedRequest: Sendable {
    /// The request with the `X-Amz-…` and `Authorization` headers added.
    public let request: SignableRequest
    public let signature: SigV4Signature
    /// The `Authorization` header's value.
    public let authorization: String
}

/// A presigned URL and when it stops working.
public struct PresignedURL: Sendable {
    /// The whole URL, query included; as secret as the access it grants until ``expires``.
    public let url: String
    public let signature: SigV4Signature
    public let expires: Date
}
