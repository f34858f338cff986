import Foundation
import SystemSupport

extension S3Client {
    /// Uploads the file at `path` to `key` and returns the object's entity tag: one PutObject below
    /// ``Options/multipartThreshold``, else a multipart upload with ``Options/concurrency`` parts in
    /// flight on a ``WorkerPool``.
    ///
    /// A failed multipart upload is aborted before the error is thrown, so no parts are left to be
    /// billed; the object appears only when every part has arrived (never half an object).
    @discardableResult
    public func uploadFile(bucket: String, key: String, path: String, contentType: String = "application/octet-stream") throws -> String {
        try uploadFile(bucket: bucket, key: key, path: path, size: try Self.fileSize(path), contentType: contentType)
    }

    /// ``uploadFile(bucket:key:path:contentType:)`` of the first `size` bytes (tests give a size
    /// larger than the file to make a part fail).
    func uploadFile(bucket: String, key: String, path: String, size: Int64, contentType: String) throws -> String {
        guard size >= Int64(options.multipartThreshold) else {
            return try putObject(bucket: bucket, key: key, body: .file(path: path, offset: 0, length: size), contentType: contentType)
        }
        let partSize = Self.partSize(for: size, preferred: options.partSize)
        let uploadID = try createMultipartUpload(bucket: bucket, key: key, contentType: contentType)
        do {
            let count = Int((size + partSize - 1) / partSize)
            let parts = Locked<[UploadedPart]>([])
            let pool = WorkerPool(label: "s3 parts", capacity: max(1, options.concurrency))
            for index in 0..<count {
                guard !pool.hasFailed else { break }
                pool.submit { [self] in
                    let offset = Int64(index) * partSize
                    let body = HTTPBody.file(path: path, offset: offset, length: min(partSize, size - offset))
                    let part = try uploadPart(bucket: bucket, key: key, uploadID: uploadID, number: index + 1, body: body)
                    parts.withLock { $0.append(part) }
                    Interruption.pause(at: "upload:part \(index + 1) sent")
                }
            }
            try pool.wait()
            return try completeMultipartUpload(bucket: bucket, key: key, uploadID: uploadID, parts: parts.value)
        } catch {
            try? abortMultipartUpload(bucket: bucket, key: key, uploadID: uploadID)
            throw error
        }
    }

    /// The part size for a file of `size` bytes: `preferred` (at least 5 MiB), grown so the file
    /// fits in 10,000 parts.
    static func partSize(for size: Int64, preferred: Int) -> Int64 {
        var part = Int64(max(preferred, minimumPartSize))
        while (size + part - 1) / part > Int64(maximumParts) { part *= 2 }
        return part
    }

    static func fileSize(_ path: String) throws -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Diagnostic.storage(.file, "cannot be read: \(String(cString: strerror(errno)))", subject: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw Diagnostic.storage(.file, "is not a regular file", subject: path) }
        return Int64(info.st_size)
    }
}
