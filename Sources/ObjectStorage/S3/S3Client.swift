import Crypto
import Foundation
import SystemSupport

/// A client of one S3-compatible store: signed requests over ``HTTPClient``, answers read, failures
/// turned into ``Diagnostic``s of domain `storage` naming the operation and `s3://bucket/key`.
///
/// Safe to share between threads. The operations are in `S3Client+Objects.swift`,
/// `S3Client+Multipart.swift` and `S3Client+Upload.swift`.
public final class S3Client: Sendable {
    public struct Options: Sendable {
        /// Whether file bodies are hashed into the signature (read twice) rather than sent as
        /// `UNSIGNED-PAYLOAD`; nil: only over plain HTTP, where TLS does not protect them.
        public var signFilePayloads: Bool?
        /// The size of each part of a multipart upload (at least 5 MiB; the last part may be smaller).
        public var partSize: Int
        /// How many parts are sent at once.
        public var concurrency: Int
        /// Files at least this large are sent as multipart uploads.
        public var multipartThreshold: Int

        public init(signFilePayloads: Bool? = nil, partSize: Int = 8 << 20, concurrency: Int = 8, multipartThreshold: Int = 16 << 20) {
            self.signFilePayloads = signFilePayloads
            self.partSize = partSize
            self.concurrency = concurrency
            self.multipartThreshold = multipartThreshold
        }
    }

    public let endpoint: S3Endpoint
    public let signer: SigV4Signer
    public let http: HTTPClient
    public let options: Options
    /// The time signatures carry (tests pass a fixed or shifted one).
    public let clock: @Sendable () -> Date

    public init(
        endpoint: S3Endpoint, credentials: AWSCredentials, region: String, http: HTTPClient = HTTPClient(), options: Options = Options(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.endpoint = endpoint
        self.signer = SigV4Signer(credentials: credentials, region: region)
        self.http = http
        self.options = options
        self.clock = clock
    }

    /// A URL that lets anyone GET `key` for `expiry` seconds (at most 7 days) with no credentials.
    public func presignedGetURL(bucket: String, key: String, expiry: Int) throws -> PresignedURL {
        try presignedURL(method: "GET", bucket: bucket, key: key, expiry: expiry)
    }

    /// A URL that lets anyone make a `method` request (`GET`, `HEAD`) for `key` for `expiry` seconds.
    /// The method is signed: a URL presigned for GET is refused for HEAD (403), on AWS as on SeaweedFS.
    public func presignedURL(method: String, bucket: String, key: String, expiry: Int) throws -> PresignedURL {
        let request = unsignedRequest(method, bucket: bucket, key: key, query: [], headers: [], payload: .unsigned)
        return try signer.presign(request, at: clock(), expiry: expiry)
    }

    /// Sends one signed request and returns the answer when it is 2xx or one of `accepted`; throws
    /// the store's error otherwise. Retried when `idempotent` (the default).
    @discardableResult
    func send(
        _ method: String, bucket: String, key: String?, query: [QueryItem] = [], headers: [Header] = [], body: HTTPBody = .none,
        responseBody: HTTPResponseBody = .memory, idempotent: Bool = true, accepted: Set<Int> = []
    ) throws -> HTTPResponse {
        let payload = try payloadHash(body)
        let unsigned = unsignedRequest(method, bucket: bucket, key: key, query: query, headers: headers, payload: payload)
        let response = try http.send(idempotent: idempotent) {
            let signed = signer.sign(unsigned, at: clock())
            return HTTPRequest(
                method: method, url: signed.request.url, headers: signed.request.headers, body: body, responseBody: responseBody)
        }
        guard response.isSuccess || accepted.contains(response.status) else {
            throw Self.failure(response, operation: "\(method) \(Self.name(bucket: bucket, key: key))")
        }
        return response
    }

    private func unsignedRequest(
        _ method: String, bucket: String, key: String?, query: [QueryItem], headers: [Header], payload: PayloadHash
    ) -> SignableRequest {
        let (host, path) = endpoint.address(bucket: bucket, key: key)
        return SignableRequest(
            method: method, scheme: endpoint.scheme, host: host, path: path, query: query, headers: headers, payload: payload)
    }

    private func payloadHash(_ body: HTTPBody) throws -> PayloadHash {
        switch body {
        case .none: return .empty
        case .data(let data): return .of(Array(data))
        case .file(let path, let offset, let length):
            guard options.signFilePayloads ?? (endpoint.scheme == "http") else { return .unsigned }
            return .sha256(try FileRange.sha256(path: path, offset: offset, length: length).hexString)
        }
    }

    /// `s3://bucket/key` (or `s3://bucket`), for messages.
    static func name(bucket: String, key: String?) -> String { "s3://\(bucket)" + (key.map { "/\($0)" } ?? "") }

    /// The store's error answer as a diagnostic: `PUT s3://b/k: HTTP 412 PreconditionFailed: …`.
    static func failure(_ response: HTTPResponse, operation: String) -> Diagnostic {
        let error = XMLTree.parse(response.body)
        let code = error?.value("Code")
        let message = error?.value("Message")
        let kind: ObjectStorageProblem =
            switch response.status {
            case 403: .accessDenied
            case 404: .notFound
            case 412: .preconditionFailed
            default: .http
            }
        let text = ["HTTP \(response.status)", code, message].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: ": ")
        return Diagnostic.storage(kind, text, subject: operation)
    }
}

/// Reading a range of a file for a request body.
enum FileRange {
    /// The SHA-256 of `length` bytes of `path` from `offset`, read in 1 MiB pieces.
    static func sha256(path: String, offset: Int64, length: Int64) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Diagnostic.storage(.file, "cannot be read: \(String(cString: strerror(errno)))", subject: path) }
        defer { close(descriptor) }
        let stream = DigestStream(.sha256)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done: Int64 = 0
        while done < length {
            let count = pread(descriptor, buffer.baseAddress, Int(min(Int64(buffer.count), length - done)), off_t(offset + done))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = count == 0 ? "it ended before byte \(offset + length)" : String(cString: strerror(errno))
                throw Diagnostic.storage(.file, "cannot be read: \(reason)", subject: path)
            }
            stream.update(UnsafeRawBufferPointer(rebasing: buffer.prefix(count)))
            done += Int64(count)
        }
        return stream.finish()
    }
}
