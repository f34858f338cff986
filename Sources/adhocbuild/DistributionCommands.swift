import AdhocBuildKit
import CommandLineOptions
import Foundation
import IPAKit
import Manifest
import PlistKit
import SystemSupport

/// `adhocbuild manifest`, `page` and `index`: what testers install from.
enum DistributionCommands {
    static let baseURLOption = OptionSpec.value(
        "--base-url", name: "URL", help: "Where the files will be served from (https).",
        required: true)
    static let allowHTTPOption = OptionSpec.flag("--allow-http", help: "Accept an http base URL (iOS will refuse it; for test setups).")
    /// `--allow-expired` of `page`.
    static let allowExpiredOption = OptionSpec.flag(
        "--allow-expired", help: "Write the page of a build whose provisioning profile has expired (it says it cannot be installed).")
    static let bundleVersionOption = OptionSpec.value(
        "--bundle-version", name: "short|build",
        kind: .choice(OTAManifest.BundleVersionSource.allCases.map(\.rawValue), noun: "bundle version"),
        help: "Which version goes in the manifest's bundle-version.", default: OTAManifest.BundleVersionSource.short.rawValue)

    static var manifest: CommandSpec {
        CommandSpec(
            name: "manifest", abstract: "Write the itms-services manifest plist for an ipa.",
            arguments: [ArgumentSpec(name: "IPA", help: "The .ipa to install.")],
            options: [
                baseURLOption, allowHTTPOption,
                .value(
                    "-o", "--output", name: "FILE", kind: .path, help: "Where to write it ('-' for standard output).",
                    default: "manifest.plist"),
                .value("--subtitle", name: "TEXT", help: "The subtitle (usually the environment)."),
                bundleVersionOption,
                .value("--ipa-url", name: "URL", help: "The ipa's URL.", defaultDescription: "the base URL and the ipa's file name")
            ],
            run: { parsed in
                var request = OTAManifest.Request(ipa: parsed.positionals[0], baseURL: parsed.required("base-url"))
                request.allowHTTP = parsed.flag("allow-http")
                request.ipaURL = parsed.value("ipa-url")
                request.subtitle = parsed.value("subtitle")
                request.bundleVersion = parsed.choice("bundle-version")!
                request.limits = try LimitSettings.current
                for warning in try OTAManifest.write(request, to: parsed.required("output")) { Console.warning(warning) }
                return 0
            })
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
            arguments: [ArgumentSpec(name: "IPA", help: "The .ipa to publish.")],
            options: [
                baseURLOption, allowHTTPOption,
                .value(
                    "-o", "--output", name: "DIR", kind: .path, help: "The folder to write (it will hold the ipa too).",
                    required: true),
                .value("--notes", name: "FILE", kind: .path, help: "Release notes: plain text with paragraphs, '- ' lists and links."),
                .value("--environment", name: "NAME", help: "The environment, shown as a badge and the manifest subtitle."),
                .value("--commit", name: "SHA", help: "The commit.", defaultDescription: "from the CI's environment"),
                .value("--branch", name: "NAME", help: "The branch.", defaultDescription: "from the CI's environment"),
                .value("--templates", name: "DIR", kind: .path, help: "A folder of templates to use instead of the built-in ones."),
                .value("--icon", name: "PNG", kind: .path, help: "The app's icon for the page and manifest, instead of the bundle's."),
                bundleVersionOption, allowExpiredOption
            ],
            run: { parsed in
                let output = parsed.required("output")
                let environment = ProcessInfo.processInfo.environment
                var options = InstallPage.Options(baseURL: parsed.required("base-url"))
                options.allowHTTP = parsed.flag("allow-http")
                options.environment = parsed.value("environment")
                if let notes = parsed.value("notes") {
                    options.notes = String(decoding: try FileIO.read(notes, limit: InputLimits.releaseNotes), as: UTF8.self)
                }
                options.commit = parsed.value("commit") ?? CIEnvironment.commit(in: environment)
                options.branch = parsed.value("branch") ?? CIEnvironment.branch(in: environment)
                options.templatesFolder = parsed.value("templates")
                options.icon = parsed.value("icon")
                options.useBuildNumberAsBundleVersion = parsed.choice("bundle-version") == OTAManifest.BundleVersionSource.build
                options.expiredProfile = parsed.flag("allow-expired") ? .warn : .refuse
                let built = BuildTime.of(parsed.positionals[0])
                (options.buildDate, options.buildDateSource) = (built?.date, built?.source)
                options.limits = try LimitSettings.current
                let result = try InstallPage(options: options).write(ipa: parsed.positionals[0], to: output)
                for warning in result.warnings { Console.warning(warning) }
                Console.lines(["\(output)/index.html", "  page:    \(result.pageURL)", "  install: \(result.installURL)"])
                return 0
            })
    }

    static var index: CommandSpec {
        CommandSpec(
            name: "index", abstract: "Write index.html for a folder of releases, grouped by environment, newest first.",
            arguments: [ArgumentSpec(name: "DIST", help: "The folder holding one subfolder per release (each with build.json).")],
            options: [.value("--title", name: "TEXT", help: "The page's title.", default: "Builds")],
            run: { parsed in
                let root = parsed.positionals[0]
                let (count, problems) = try BuildIndex.write(in: root, title: parsed.required("title"))
                for problem in problems { Console.warning(problem) }
                Console.line("\(root)/index.html: \(count) release\(count == 1 ? "" : "s")")
                return 0
            })
    }
}
