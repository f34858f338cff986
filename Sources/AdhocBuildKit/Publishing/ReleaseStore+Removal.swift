import ObjectStorage
import SystemSupport

extension ReleaseStore {
    /// Removes the release `<env>/<name>/` from the store, in the order that never shows half a
    /// release: its `build.json` first (a release is published while that object is there, so from
    /// then on no listing, index or `latest` takes it), then every other object under the folder
    /// (DeleteObjects, 1,000 a request), then the multipart uploads started there and never finished,
    /// so no invisible parts stay billed. A release already gone is no error; a run stopped halfway
    /// leaves an unlisted folder that running it again removes.
    /// An environment or name that is not one folder name (empty, `.`, `..`, holding `/`) or a name
    /// `latest` is refused before anything is removed.
    ///
    /// It does not touch `<env>/latest/` or the index: the caller never removes the release `latest`
    /// copies, and rewrites the index after.
    public func removeRelease(environment: String, name: String) throws {
        for (what, value) in [("environment", environment), ("release name", name)]
        where value.isEmpty || value == "." || value == ".." || value.contains("/") || (what == "release name" && value == "latest") {
            throw Diagnostic.storage(
                .invalidArgument, "'\(value)' is not a \(what) that names one release folder", subject: location.description)
        }
        let folder = key(Self.releaseFolder(environment: environment, name: name)) + "/"
        let buildInfo = folder + "build.json"
        try client.deleteObject(bucket: location.bucket, key: buildInfo)
        let others = try client.listObjects(bucket: location.bucket, prefix: folder).objects.map(\.key).filter { $0 != buildInfo }
        try client.deleteObjects(bucket: location.bucket, keys: others)
        for upload in try client.listMultipartUploads(bucket: location.bucket, prefix: folder) {
            try client.abortMultipartUpload(bucket: location.bucket, key: upload.key, uploadID: upload.uploadID)
        }
    }
}
