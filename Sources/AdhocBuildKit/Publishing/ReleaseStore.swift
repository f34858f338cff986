import Foundation
import Manifest
import ObjectStorage
import SystemSupport

/// Releases kept in an S3-compatible store, at `s3://BUCKET/PREFIX/`, and how links to them are written.
///
/// The layout under the prefix is DIST's, with the same names:
/// - `<env>/<version>-<build>/…`: one release, the files of `DIST/<env>/<version>-<build>/`. Its
///   `build.json` is uploaded last: a release is published once its `build.json` is there, and a run
///   stopped before leaves one that the next run publishes again.
/// - `<env>/latest/index.html` and `<env>/latest/build.json`: copies of the newest release's page
///   and `build.json` (a store has no links; the page's own links are absolute, so the copy works).
/// - `index.html` and `index.css`: the index of every release, built from the store's listing.
///
/// Links are presigned GET URLs valid for a time (private, the default), or plain URLs under a
/// public base (a CDN or a public bucket).
public struct ReleaseStore: Sendable {
    /// How links to the store's objects are written.
    public enum Links: Sendable, Equatable {
        /// Presigned GET URLs valid for `ttl` seconds (at most 7 days, SigV4's limit).
        case presigned(ttl: Int)
        /// Plain links: the public base URL (`https://cdn.example.com/builds/`) joined with the key's
        /// part below the prefix.
        case publicBase(String)
    }

    public let client: S3Client
    public let location: S3Location
    public let links: Links
    /// The client that presigns links: ``client``, unless a test mints them at another time.
    let linkClient: S3Client

    public init(client: S3Client, location: S3Location, links: Links) {
        self.init(client: client, location: location, links: links, linkClient: client)
    }

    init(client: S3Client, location: S3Location, links: Links, linkClient: S3Client) {
        self.client = client
        self.location = location
        self.links = links
        self.linkClient = linkClient
    }

    /// The key of `relative` (`Staging/1.0-57/index.html`) under the prefix.
    public func key(_ relative: String) -> String { location.key(relative) }

    /// The link to `relative` (below the prefix) that a browser or an iPhone opens with no credentials.
    public func url(_ relative: String) throws -> String {
        switch links {
        case .presigned(let ttl):
            return try linkClient.presignedGetURL(bucket: location.bucket, key: key(relative), expiry: ttl).url
        case .publicBase(let base):
            return URLEncoding.join(base.hasSuffix("/") ? base : base + "/", relative)
        }
    }

    /// The prefix's plain URL (`https://bucket.s3.eu-west-1.amazonaws.com/builds/`): what a public
    /// store would serve the releases from, and the base URL of the copy `release --publish` keeps in DIST.
    public var plainBaseURL: String {
        let address = client.endpoint.address(bucket: location.bucket, key: location.prefix.isEmpty ? nil : location.prefix)
        let path = address.path.hasSuffix("/") ? address.path : address.path + "/"
        return "\(client.endpoint.scheme)://\(address.host)\(path)"
    }

    /// `relative`'s folder of one release: `<env>/<version>-<build>`.
    public static func releaseFolder(environment: String, name: String) -> String { environment + "/" + name }
}
