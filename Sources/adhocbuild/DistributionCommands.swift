import AdhocBuildKit
import CommandLineOptions
import Foundation
import IPAKit
import Manifest
import PlistKit
import SystemSupport

/// `adhocbuild manifest`, `page` and `index`: what testers install from.
enum DistributionCommands {
    static func baseURLOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, String>) -> Declaration<Options> {
        .option(property, "--base-url", name: "URL", help: "Where the files will be served from (https).", required: true)
    }

    static func allowHTTPOption<Options: CommandOptions>(_ property: WritableKeyPath<Options, Bool>) -> Declaration<Options> {
        .flag(property, "--allow-http", help: "Accept an http base URL (iOS will refuse it; for test setups).")
    }

    static func bundleVersionOption<Options: CommandOptions>(
        _ property: WritableKeyPath<Options, OTAManifest.BundleVersionSource>
    ) -> Declaration<Options> {
        .choice(
            property, "--bundle-version", name: "short|build", noun: "bundle version",
            help: "Which version goes in the manifest's bundle-version.")
    }

    struct ManifestOptions: CommandOptions {
        var ipa = ""
        var baseURL = ""
        var allowHTTP = false
        var output = "manifest.plist"
        var subtitle: String?
        var bundleVersion = OTAManifest.BundleVersionSource.short
        var ipaURL: String?
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.ipa, "IPA", help: "The .ipa to install."), baseURLOption(\.baseURL), allowHTTPOption(\.allowHTTP),
                .option(\.output, "-o", "--output", name: "FILE", kind: .path, help: "Where to write it ('-' for standard output)."),
                .option(\.subtitle, "--subtitle", name: "TEXT", help: "The subtitle (usually the environment)."),
                bundleVersionOption(\.bundleVersion),
                .option(
                    \.ipaURL, "--ipa-url", name: "URL", help: "The ipa's URL.", defaultDescription: "the base URL and the ipa's file name")
            ]
        }
    }

    static var manifest: CommandSpec {
        CommandSpec(name: "manifest", abstract: "Write the itms-services manifest plist for an ipa.", options: ManifestOptions.self) {
            options, _ in
            var request = OTAManifest.Request(ipa: options.ipa, baseURL: options.baseURL)
            request.limits = try LimitSettings.current
            request.allowHTTP = options.allowHTTP
            request.ipaURL = options.ipaURL
            request.subtitle = options.subtitle
            request.bundleVersion = options.bundleVersion
            for warning in try OTAManifest.write(request, to: options.output) { Console.warning(warning) }
            return 0
        }
    }

    struct PageOptions: CommandOptions {
        var ipa = ""
        var baseURL = ""
        var allowHTTP = false
        var output = ""
        var notes: String?
        var environment: String?
        var commit: String?
        var branch: String?
        var templates: String?
        var icon: String?
        var bundleVersion = OTAManifest.BundleVersionSource.short
        var allowExpired = false
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.ipa, "IPA", help: "The .ipa to publish."), baseURLOption(\.baseURL), allowHTTPOption(\.allowHTTP),
                .option(
                    \.output, "-o", "--output", name: "DIR", kind: .path, help: "The folder to write (it will hold the ipa too).",
                    required: true),
                .option(
                    \.notes, "--notes", name: "FILE", kind: .path, help: "Release notes: plain text with paragraphs, '- ' lists and links."),
                .option(\.environment, "--environment", name: "NAME", help: "The environment, shown as a badge and the manifest subtitle."),
                .option(\.commit, "--commit", name: "SHA", help: "The commit.", defaultDescription: "from the CI's environment"),
                .option(\.branch, "--branch", name: "NAME", help: "The branch.", defaultDescription: "from the CI's environment"),
                .option(
                    \.templates, "--templates", name: "DIR", kind: .path, help: "A folder of templates to use instead of the built-in ones."
                ),
                .option(
                    \.icon, "--icon", name: "PNG", kind: .path, help: "The app's icon for the page and manifest, instead of the bundle's."),
                bundleVersionOption(\.bundleVersion),
                .flag(
                    \.allowExpired, "--allow-expired",
                    help: "Write the page of a build whose provisioning profile has expired (it says it cannot be installed).")
            ]
        }
    }

    static var page: CommandSpec {
        CommandSpec(
            name: "page", abstract: "Write a tester's install page: index.html, manifest, icons, version.json, build.json.",
            discussion: """
                The page is self-contained (no web fonts, no CDN, no external requests), shows the app, its version, \
                environment, release notes, build details and profile expiry, detects iPhone, iPad (also in desktop \
                mode), desktop and in-app browsers, and carries a QR code of its own address. Templates come from the \
                binary; --templates DIR replaces any of them (page.mustache, style.mustache, device-script.mustache).
                """,
            options: PageOptions.self
        ) { given, _ in
            let environment = ProcessInfo.processInfo.environment
            var options = InstallPage.Options(baseURL: given.baseURL)
            options.limits = try LimitSettings.current
            options.allowHTTP = given.allowHTTP
            options.environment = given.environment
            if let notes = given.notes {
                options.notes = String(decoding: try FileIO.read(notes, limit: InputLimits.releaseNotes), as: UTF8.self)
            }
            options.commit = given.commit ?? CIEnvironment.commit(in: environment)
            options.branch = given.branch ?? CIEnvironment.branch(in: environment)
            options.templatesFolder = given.templates
            options.icon = given.icon
            options.useBuildNumberAsBundleVersion = given.bundleVersion == .build
            options.expiredProfile = given.allowExpired ? .warn : .refuse
            let built = BuildTime.of(given.ipa, limits: options.limits)
            (options.buildDate, options.buildDateSource) = (built?.date, built?.source)
            let result = try InstallPage(options: options).write(ipa: given.ipa, to: given.output)
            for warning in result.warnings { Console.warning(warning.report) }
            Console.lines(["\(given.output)/index.html", "  page:    \(result.pageURL)", "  install: \(result.installURL)"])
            return 0
        }
    }

    struct IndexOptions: CommandOptions {
        var root = ""
        var title = "Builds"
        static var declarations: [Declaration<Self>] {
            [
                .argument(\.root, "DIST", help: "The folder holding one subfolder per release (each with build.json)."),
                .option(\.title, "--title", name: "TEXT", help: "The page's title.")
            ]
        }
    }

    static var index: CommandSpec {
        CommandSpec(
            name: "index", abstract: "Write index.html for a folder of releases, grouped by environment, newest first.",
            options: IndexOptions.self
        ) { options, _ in
            let (count, problems) = try BuildIndex.write(in: options.root, title: options.title)
            for problem in problems { Console.warning(problem) }
            Console.line("\(options.root)/index.html: \(count) release\(count == 1 ? "" : "s")")
            return 0
        }
    }
}
