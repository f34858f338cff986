import Foundation
import PlistKit
import SystemSupport

extension S3Client {
    /// The most parts one upload may have, and the least a part but the last may hold.
    public static let maximumParts = 10_000
    public static let minimumPartSize = 5 << 20

    /// Starts a multipart upload of `key` (CreateMultipartUpload) and returns its upload id. Not
    /// retried: a retry after a lost answer would leave an upload nobody aborts.
    public func createMultipartUpload(bucket: String, key: String, contentType: String = "application/octet-stream") throws -> String {
        let response = try send(
            "POST", bucket: bucket, key: key, query: [QueryItem("uploads", "")], headers: [Header("Content-Type", contentType)],
            idempotent: false)
        guard let id = XMLTree.parse(response.body)?.value("UploadId"), !id.isEmpty else {
            throw Diagnostic.storage(
                .malformedResponse, "the answer has no UploadId", subject: "POST \(Self.name(bucket: bucket, key: key))")
        }
        return id
    }

    /// Sends part `number` (from 1) of an upload and returns its entity tag.
    public func uploadPart(bucket: String, key: String, uploadID: String, number: Int, body: HTTPBody) throws -> UploadedPart {
        let response = try send(
            "PUT", bucket: bucket, key: key, query: [QueryItem("partNumber", String(number)), QueryItem("uploadId", uploadID)], body: body)
        return UploadedPart(number: number, etag: try etag(response, "PUT part \(number) of", bucket: bucket, key: key))
    }

    /// Joins the parts into the object (CompleteMultipartUpload) and returns its entity tag. A 200
    /// whose body is an `Error` (S3 can fail after it has started answering) throws.
    @discardableResult
    public func completeMultipartUpload(bucket: String, key: String, uploadID: String, parts: [UploadedPart]) throws -> String {
        let items = parts.sorted { $0.number < $1.number }
            .map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(XMLText.escape($0.etag))</ETag></Part>" }.joined()
        let body = Data("<CompleteMultipartUpload>\(items)</CompleteMultipartUpload>".utf8)
        let response = try send(
            "POST", bucket: bucket, key: key, query: [QueryItem("uploadId", uploadID)],
            headers: [Header("Content-Type", "application/xml")],
            body: .data(body))
        let answer = XMLTree.parse(response.body)
        guard let answer, answer.name == "CompleteMultipartUploadResult" else {
            let code = answer?.value("Code").map { ": \($0)" } ?? ""
            throw Diagnostic.storage(
                .http, "the upload was not completed\(code)\(answer?.value("Message").map { ": \($0)" } ?? "")",
                subject: "POST \(Self.name(bucket: bucket, key: key))")
        }
        return answer.value("ETag") ?? ""
    }

    /// Drops an upload and its parts (AbortMultipartUpload); an upload already gone is no error.
    public func abortMultipartUpload(bucket: String, key: String, uploadID: String) throws {
        try send("DELETE", bucket: bucket, key: key, query: [QueryItem("uploadId", uploadID)], accepted: [404])
    }

    /// The uploads started and neither completed nor aborted under `prefix` (ListMultipartUploads,
    /// every page).
    public func listMultipartUploads(bucket: String, prefix: String = "") throws -> [MultipartUploadInfo] {
        var uploads: [MultipartUploadInfo] = []
        var marker: (key: String, id: String)?
        repeat {
            var query = [QueryItem("uploads", ""), QueryItem("prefix", prefix)]
            if let marker { query += [QueryItem("key-marker", marker.key), QueryItem("upload-id-marker", marker.id)] }
            let response = try send("GET", bucket: bucket, key: nil, query: query)
            guard let page = XMLTree.parse(response.body), page.name == "ListMultipartUploadsResult" else {
                throw Diagnostic.storage(
                    .malformedResponse, "the answer is not a ListMultipartUploadsResult",
                    subject: "LIST uploads \(Self.name(bucket: bucket, key: prefix))")
            }
            uploads += page.children("Upload").map {
                MultipartUploadInfo(key: $0.value("Key") ?? "", uploadID: $0.value("UploadId") ?? "", initiated: $0.value("Initiated"))
            }
            let next = (page.value("NextKeyMarker") ?? "", page.value("NextUploadIdMarker") ?? "")
            marker = page.value("IsTruncated") == "true" && !(next.0.isEmpty && next.1.isEmpty) ? (next.0, next.1) : nil
        } while marker != nil
        return uploads
    }
}
