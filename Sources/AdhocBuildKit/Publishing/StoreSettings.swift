import Foundation
import Manifest
import ObjectStorage
import SystemSupport

/// How to reach a store and how to link to it, as `publish`, `links`, `prune` and `release --publish`
/// take them: `--endpoint`, `--region`, `--addressing`, `--allow-http`, `--link-ttl`, `--public-base-url`.
/// Credentials are never among them: they come from the environment and the AWS shared files.
public struct StoreSettings: Sendable {
    /// The store's URL (`https://minio.example.com:9000`); nil: `AWS_ENDPOINT_URL_S3` or
    /// `AWS_ENDPOINT_URL` as the AWS CLI reads them, else AWS S3 in the region.
    public var endpoint: String?
    /// nil: `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile's region; else `us-east-1` for a store
    /// given by its endpoint (most S3-compatible stores accept any region).
    public var region: String?
    public var addressing: S3Endpoint.Addressing = .auto
    /// Allow an `http://` endpoint (a store on a trusted network, or a test's).
    public var allowHTTP = false
    /// How long presigned links last (at most 7 days, the default).
    public var linkTTL: TimeSpan = TimeSpan(seconds: SigV4Signer.maximumExpiry)
    /// Plain links under this URL instead of presigned ones: a CDN or a public bucket in front of the prefix.
    public var publicBaseURL: String?

    public init() {}

    /// The link style these settings ask for; an error naming the option when the TTL is out of range
    /// or the public base is not an https URL.
    public func links() throws -> ReleaseStore.Links {
        if let publicBaseURL {
            return .publicBase(try URLEncoding.baseURL(publicBaseURL, allowHTTP: allowHTTP, shownAs: publicBaseURL))
        }
        guard linkTTL.seconds >= 1 else { throw Diagnostic.storage(.invalidArgument, "--link-ttl must be at least 1s, not \(linkTTL)") }
        guard linkTTL.seconds <= SigV4Signer.maximumExpiry else {
            throw Diagnostic.storage(
                .invalidArgument,
                "--link-ttl \(linkTTL) is longer than 7 days, the most a presigned link can last (AWS Signature Version 4); "
                    + "mint new links later with `adhocbuild links`, or use --public-base-url")
        }
        return .presigned(ttl: linkTTL.seconds)
    }
}

extension ReleaseStore {
    /// The store at `location` (`s3://BUCKET/PREFIX/`) reached with `settings`, signed with the
    /// credentials `environment` names (the process's by default).
    public static func open(
        _ location: String, settings: StoreSettings, environment: [String: String] = ProcessInfo.processInfo.environment,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws -> ReleaseStore {
        let parsed = try S3Location(parsing: location)
        let links = try settings.links()
        let configuration = AWSConfiguration(environment: environment)
        let endpointText =
            settings.endpoint ?? Self.nonEmpty(environment["AWS_ENDPOINT_URL_S3"]) ?? Self.nonEmpty(environment["AWS_ENDPOINT_URL"])
        let configuredRegion = try settings.region ?? configuration.region()
        let endpoint: S3Endpoint
        let region: String
        if let endpointText {
            endpoint = try S3Endpoint(url: endpointText, addressing: settings.addressing, allowHTTP: settings.allowHTTP)
            region = configuredRegion ?? "us-east-1"
        } else {
            guard let configuredRegion else {
                throw Diagnostic.storage(
                    .invalidArgument, "no region for AWS S3: set AWS_REGION or give --region (or --endpoint for another store)")
            }
            endpoint = .aws(region: configuredRegion, addressing: settings.addressing)
            region = configuredRegion
        }
        let client = S3Client(endpoint: endpoint, credentials: try configuration.credentials(), region: region, clock: clock)
        return ReleaseStore(client: client, location: parsed, links: links)
    }

    private static func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
}
