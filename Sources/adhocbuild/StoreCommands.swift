import AdhocBuildKit
import CommandLineOptions
import Foundation
import Manifest
import SystemSupport

/// `adhocbuild publish` and `links`: releases in an S3-compatible store, reached by private, expiring links.
enum StoreCommands {
    struct PublishOptions: CommandOptions {
        var release = ""
        var destination = ""
        var store = StoreOptions()
        var allowHTTP = false
        var replace = false
        var templates: String?
        var title = "Builds"
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.release, "RELEASE", help: "The release's folder, DIST/<env>/<version>-<build>.", kind: .path),
                .argument(\.destination, "s3://BUCKET/PREFIX/", help: "Where the store keeps the releases."),
                .group(\.store), StoreOptions.allowHTTPOption(\.allowHTTP),
                .flag(\.replace, "--replace", help: "Replace the release if it is already published."),
                .option(
                    \.templates, "--templates", name: "DIR", kind: .path, help: "The templates the page was written with.",
                    defaultDescription: "the built-in ones"),
                .option(\.title, "--title", name: "TEXT", help: "The index's title.")
            ]
        }
    }

    static var publish: CommandSpec {
        CommandSpec(
            name: "publish", abstract: "Upload a release to S3-compatible storage and update the store's index.",
            discussion: """
                The page, manifest, icons and ipa are linked by presigned URLs that last --link-ttl (7 days at most), \
                so testers need no account and nothing is public; --public-base-url writes plain links instead. The \
                printed page link is what testers open (it goes in the QR code too). Credentials come from \
                AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, AWS_PROFILE and ~/.aws, as the AWS CLI reads them.
                """,
            options: PublishOptions.self
        ) { options, _ in
            let store = try ReleaseStore.open(options.destination, settings: options.store.settings(allowHTTP: options.allowHTTP))
            var upload = ReleaseUpload(store: store)
            upload.replace = options.replace
            upload.templatesFolder = options.templates
            upload.indexTitle = options.title
            let result = try upload.publish(options.release)
            for warning in result.warnings { Console.warning(warning.report) }
            var lines = [result.location, "  page:    \(result.links.page)", "  install: \(result.links.install)"]
            if let index = result.index {
                lines.append("  index:   \(index.url) (\(index.releaseCount) release\(index.releaseCount == 1 ? "" : "s"))")
            }
            Console.lines(lines)
            return 0
        }
    }

    struct LinksOptions: CommandOptions {
        var release = ""
        var store = StoreOptions()
        var allowHTTP = false
        var templates: String?
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.release, "s3://BUCKET/PREFIX/ENV/VERSION-BUILD/", help: "The published release."),
                .group(\.store), StoreOptions.allowHTTPOption(\.allowHTTP),
                .option(
                    \.templates, "--templates", name: "DIR", kind: .path, help: "The templates the page was written with.",
                    defaultDescription: "the built-in ones")
            ]
        }
    }

    static var links: CommandSpec {
        CommandSpec(
            name: "links", abstract: "Mint new links for a published release (its page, manifest, icons and ipa), without rebuilding it.",
            discussion: """
                Presigned links last 7 days at most. Run this to give testers a release again after its links expired, \
                or to shorten their life (--ttl 1h). The old links keep working until they expire.
                """,
            options: LinksOptions.self
        ) { options, _ in
            let (root, environment, name) = try ReleaseLinkRefresh.split(options.release)
            var refresh = ReleaseLinkRefresh(
                store: try ReleaseStore.open(root, settings: options.store.settings(allowHTTP: options.allowHTTP)))
            refresh.templatesFolder = options.templates
            let (links, index) = try refresh.refresh(environment: environment, name: name)
            for problem in index.problems { Console.warning(problem) }
            Console.lines(["  page:    \(links.page)", "  install: \(links.install)", "  index:   \(index.url)"])
            return 0
        }
    }
}
