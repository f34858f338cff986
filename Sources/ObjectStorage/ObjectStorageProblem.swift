import SystemSupport

/// The kinds of problem talking to an S3-compatible object store (domain `storage`).
public enum ObjectStorageProblem: String, DiagnosticKind {
    /// A location, endpoint, region, expiry or other value given by the user is not usable.
    case invalidArgument
    /// No credentials were found, or the ones found are incomplete or malformed.
    case credentials
    /// The request never got an HTTP answer (connection refused, timeout, TLS failure).
    case transport
    /// The store refused the request (403: bad or expired signature, no permission, anonymous).
    case accessDenied
    /// The bucket, object or multipart upload does not exist (404).
    case notFound
    /// A conditional request's condition did not hold (412: `If-Match` on a changed object,
    /// `If-None-Match: *` on an existing one).
    case preconditionFailed
    /// The store answered with another error status (400, 409, 5xx after the retries, …).
    case http
    /// The store answered 2xx with a body this client cannot read.
    case malformedResponse
    /// A local file to send or to write could not be read or written.
    case file
    /// libcurl, which sends every request, cannot be loaded (not installed, or not the library
    /// expected): no request was sent, and trying again will not help.
    case httpClient

    public static let domain = "storage"
}

extension DiagnosticCode {
    /// A problem with an object store: `.storage(.http)`.
    public static func storage(_ kind: ObjectStorageProblem) -> DiagnosticCode { DiagnosticCode(kind) }
}

extension Diagnostic {
    /// A problem with an object store, naming what was asked (`PUT s3://bucket/key`) as the file.
    ///
    /// Never pass a secret or a presigned URL's query string in any of these values.
    public static func storage(
        _ kind: ObjectStorageProblem, _ message: String, subject: String? = nil, hint: String? = nil
    ) -> Diagnostic {
        Diagnostic(.storage(kind), message, file: subject, hint: hint)
    }
}
