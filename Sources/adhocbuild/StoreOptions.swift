import AdhocBuildKit
import CommandLineOptions
import Foundation
import ObjectStorage
import SystemSupport

/// The options of the commands that talk to an object store (`publish`, `links`, `prune`, `release
/// --publish`): where the store is and how links to it are written. Credentials are not among them:
/// they come from `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`, `AWS_PROFILE` and
/// the shared files, as the AWS CLI reads them.
struct StoreOptions: CommandOptions {
    var endpoint: String?
    var region: String?
    var addressing = S3Endpoint.Addressing.auto
    var linkTTL = "7d"
    var publicBaseURL: String?

    static let durationKind = ValueKind.checked(expectation: "a duration such as 7d, 36h or 90m", accepts: { TimeSpan($0) != nil })

    static var declarations: [Declaration<Self>] {
        [
            .option(
                \.endpoint, "--endpoint", name: "URL", help: "The S3-compatible store's URL (https).",
                defaultDescription: "$AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS S3 in the region"),
            .option(
                \.region, "--region", name: "REGION", help: "The region to sign for.",
                defaultDescription: "$AWS_REGION, the profile's, else us-east-1 with --endpoint"),
            .choice(
                \.addressing, "--addressing", name: "auto|path|virtual", noun: "addressing", help: "Bucket in the path or in the host name."
            ),
            .option(
                \.linkTTL, "--link-ttl", "--ttl", name: "DURATION", kind: durationKind,
                help: "How long the presigned links last (at most 7d, SigV4's limit)."),
            .option(
                \.publicBaseURL, "--public-base-url", name: "URL",
                help: "Write plain links under this URL (a CDN or public bucket) instead of presigned ones.",
                defaultDescription: "private: presigned links")
        ]
    }

    /// The `--allow-http` of `publish` and `links` (`release` has its own, for its base URL too).
    static func allowHTTPOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, Bool>) -> Declaration<Options> {
        .flag(property, "--allow-http", help: "Accept an http:// endpoint or public base URL (a store on a trusted network).")
    }

    /// The settings as given, with `--allow-http`'s answer.
    func settings(allowHTTP: Bool) -> StoreSettings {
        var settings = StoreSettings()
        settings.endpoint = endpoint
        settings.region = region
        settings.addressing = addressing
        settings.allowHTTP = allowHTTP
        settings.linkTTL = TimeSpan(linkTTL) ?? settings.linkTTL
        settings.publicBaseURL = publicBaseURL
        return settings
    }
}
