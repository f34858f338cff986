import Foundation

/// What a HEAD or GET tells about an object.
public struct ObjectInfo: Sendable, Equatable {
    public let key: String
    /// The entity tag, quotes included (`"9b2cf535f27731c974343645a3985328"`), as `If-Match` wants it.
    public let etag: String
    public let size: Int64
    public let contentType: String?
    public let lastModified: String?
}

/// One object of a listing.
public struct ListedObject: Sendable, Equatable {
    public let key: String
    public let etag: String
    public let size: Int64
    /// As S3 writes it (`2026-06-02T03:04:05.000Z`).
    public let lastModified: String
}

/// Everything under a prefix: the objects, and with a delimiter the "folders" one level down.
public struct ObjectListing: Sendable, Equatable {
    public var objects: [ListedObject] = []
    /// The common prefixes (`Staging/1.0-57/`) when listed with a delimiter.
    public var commonPrefixes: [String] = []
}

/// A condition on a write, so that concurrent writers lose nothing.
public enum WriteCondition: Sendable, Equatable {
    /// Write only if the object's entity tag is still this one (`If-Match`); else 412.
    case ifMatch(String)
    /// Write only if no object has the key (`If-None-Match: *`); else 412.
    case ifAbsent
}

/// A multipart upload in progress.
public struct MultipartUploadInfo: Sendable, Equatable {
    public let key: String
    public let uploadID: String
    public let initiated: String?
}

/// An uploaded part, as Complete wants it.
public struct UploadedPart: Sendable, Equatable {
    public let number: Int
    public let etag: String

    public init(number: Int, etag: String) {
        self.number = number
        self.etag = etag
    }
}
