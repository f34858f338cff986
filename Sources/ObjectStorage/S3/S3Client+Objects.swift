import Crypto
import Foundation
import PlistKit
import SystemSupport

extension S3Client {
    /// Creates `bucket` (CreateBucket, in the client's region); one that exists and is ours is no error.
    public func createBucket(_ bucket: String) throws {
        let region = signer.region
        let body =
            region == "us-east-1"
            ? Data()
            : Data(
                "<CreateBucketConfiguration><LocationConstraint>\(XMLText.escape(region))</LocationConstraint></CreateBucketConfiguration>"
                    .utf8)
        do {
            try send("PUT", bucket: bucket, key: nil, body: body.isEmpty ? .none : .data(body))
        } catch let error as Diagnostic where error.message.contains("BucketAlreadyOwnedByYou") {
            return
        }
    }

    /// Stores `body` at `key` (PutObject) and returns the new entity tag (quotes included).
    ///
    /// `condition` makes the write conditional: a 412 then throws a diagnostic of kind
    /// ``ObjectStorageProblem/preconditionFailed``, which a caller that merges (the index) catches
    /// to read again and retry.
    @discardableResult
    public func putObject(
        bucket: String, key: String, body: HTTPBody, contentType: String = "application/octet-stream", condition: WriteCondition? = nil,
        cacheControl: String? = nil
    ) throws -> String {
        var headers = [Header("Content-Type", contentType)]
        if let cacheControl { headers.append(Header("Cache-Control", cacheControl)) }
        switch condition {
        case .ifMatch(let etag): headers.append(Header("If-Match", etag))
        case .ifAbsent: headers.append(Header("If-None-Match", "*"))
        case nil: break
        }
        let response = try send("PUT", bucket: bucket, key: key, headers: headers, body: body)
        return try etag(response, "PUT", bucket: bucket, key: key)
    }

    /// What the store knows of `key` (HeadObject), or nil when there is no such object.
    public func headObject(bucket: String, key: String) throws -> ObjectInfo? {
        let response = try send("HEAD", bucket: bucket, key: key, accepted: [404])
        guard response.status != 404 else { return nil }
        return try info(response, "HEAD", bucket: bucket, key: key)
    }

    /// The bytes of `key` (GetObject), for small objects (an index, a `build.json`).
    public func getObject(bucket: String, key: String) throws -> (data: Data, info: ObjectInfo) {
        let response = try send("GET", bucket: bucket, key: key)
        return (response.body, try info(response, "GET", bucket: bucket, key: key))
    }

    /// ``getObject(bucket:key:)``, or nil when there is no such object (404), as ``headObject(bucket:key:)`` answers.
    public func getObjectIfPresent(bucket: String, key: String) throws -> (data: Data, info: ObjectInfo)? {
        let response = try send("GET", bucket: bucket, key: key, accepted: [404])
        guard response.status != 404 else { return nil }
        return (response.body, try info(response, "GET", bucket: bucket, key: key))
    }

    /// Writes `key` into the file at `path` (GetObject), which each attempt creates or truncates:
    /// give a temporary path and rename it once this returns.
    public func getObject(bucket: String, key: String, to path: String) throws -> ObjectInfo {
        let response = try send("GET", bucket: bucket, key: key, responseBody: .file(path))
        return try info(response, "GET", bucket: bucket, key: key)
    }

    /// Removes `key` (DeleteObject); removing a key that does not exist is no error.
    public func deleteObject(bucket: String, key: String) throws {
        try send("DELETE", bucket: bucket, key: key, accepted: [404])
    }

    /// Removes `keys` (DeleteObjects, 1,000 a request); throws naming the first key the store could
    /// not remove.
    public func deleteObjects(bucket: String, keys: [String]) throws {
        for start in stride(from: 0, to: keys.count, by: 1000) {
            let batch = keys[start..<min(keys.count, start + 1000)]
            let objects = batch.map { "<Object><Key>\(XMLText.escape($0))</Key></Object>" }.joined()
            let body = Data("<Delete><Quiet>true</Quiet>\(objects)</Delete>".utf8)
            let response = try send(
                "POST", bucket: bucket, key: nil, query: [QueryItem("delete", "")],
                headers: [Header("Content-Type", "application/xml"), Header("Content-MD5", Self.md5Base64(body))], body: .data(body))
            if let error = XMLTree.parse(response.body)?.children("Error").first {
                let key = error.value("Key") ?? "?"
                throw Diagnostic.storage(
                    .http, [error.value("Code"), error.value("Message")].compactMap { $0 }.joined(separator: ": "),
                    subject: "DELETE \(Self.name(bucket: bucket, key: key))")
            }
        }
    }

    /// Every object under `prefix` (ListObjectsV2, following continuation tokens); with a
    /// `delimiter` (`/`), the objects one level down and the "folders" as ``ObjectListing/commonPrefixes``.
    public func listObjects(bucket: String, prefix: String = "", delimiter: String? = nil, pageSize: Int = 1000) throws -> ObjectListing {
        var listing = ObjectListing()
        var token: String?
        repeat {
            var query = [QueryItem("list-type", "2"), QueryItem("prefix", prefix), QueryItem("max-keys", String(pageSize))]
            if let delimiter { query.append(QueryItem("delimiter", delimiter)) }
            if let token { query.append(QueryItem("continuation-token", token)) }
            let response = try send("GET", bucket: bucket, key: nil, query: query)
            guard let page = XMLTree.parse(response.body), page.name == "ListBucketResult" else {
                throw Diagnostic.storage(
                    .malformedResponse, "the listing is not a ListBucketResult", subject: "LIST \(Self.name(bucket: bucket, key: prefix))")
            }
            for item in page.children("Contents") {
                listing.objects.append(
                    ListedObject(
                        key: item.value("Key") ?? "", etag: item.value("ETag") ?? "", size: Int64(item.value("Size") ?? "") ?? 0,
                        lastModified: item.value("LastModified") ?? ""))
            }
            listing.commonPrefixes += page.children("CommonPrefixes").compactMap { $0.value("Prefix") }
            token = page.value("IsTruncated") == "true" ? page.value("NextContinuationToken") : nil
        } while token != nil
        return listing
    }

    func etag(_ response: HTTPResponse, _ method: String, bucket: String, key: String) throws -> String {
        guard let etag = response.header("ETag"), !etag.isEmpty else {
            throw Diagnostic.storage(
                .malformedResponse, "the answer has no ETag", subject: "\(method) \(Self.name(bucket: bucket, key: key))")
        }
        return etag
    }

    private func info(_ response: HTTPResponse, _ method: String, bucket: String, key: String) throws -> ObjectInfo {
        ObjectInfo(
            key: key, etag: try etag(response, method, bucket: bucket, key: key), size: Int64(response.header("Content-Length") ?? "") ?? 0,
            contentType: response.header("Content-Type"), lastModified: response.header("Last-Modified"))
    }

    /// The base64 MD5 of `data`, for `Content-MD5` (DeleteObjects requires it), through libcrypto.
    static func md5Base64(_ data: Data) -> String { Data(Digest.md5(data)).base64EncodedString() }
}
