import Foundation
import IPAKit
import Manifest
import PlistKit
import SystemSupport

/// `adhocbuild manifest`, `page` and `index`: what testers install from.
enum DistributionCommands {
    static let baseURLOption = OptionSpec.value("--base-url", name: "URL", help: "Where the files will be served from (https).")
    static let allowHTTPOption = OptionSpec.flag("--allow-http", help: "Accept an http base URL (iOS will refuse it; for test setups).")

    static func commit() -> String? {
        let environment = ProcessInfo.processInfo.environment
        return ["GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", "BUILD_VCS_NUMBER"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    static func branch() -> String? {
        let environment = ProcessInfo.processInfo.environment
        return ["GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "GIT_BRANCH", "BRANCH_NAME"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    static var manifest: CommandSpec {
        CommandSpec(
            name: "manifest", abstract: "Write the itms-services manifest plist for an ipa.",
            arguments: [ArgumentSpec(name: "IPA", help: "The .ipa to install.")],
            options: [baseURLOption, allowHTTPOption,
                      .value("-o", "--output", name: "FILE", help: "Where to write it (default: manifest.plist; '-' for standard output)."),
                      .value("--subtitle", name: "TEXT", help: "The subtitle (usually the environment)."),
                      .value("--bundle-version", name: "short|build", help: "Which version goes in bundle-version (default: short)."),
                      .value("--ipa-url", name: "URL", help: "The ipa's URL (default: the base URL and the ipa's file name).")],
            run: { parsed in
                guard let baseText = parsed.value("base-url") else { throw UsageError(message: "missing --base-url URL", commandPath: parsed.path) }
                let base = try URLEncoding.baseURL(baseText, allowHTTP: parsed.flag("allow-http"))
                if base.lowercased().hasPrefix("http:") { Console.warning("the base URL uses http: iOS will refuse to install from it") }
                let mode = parsed.value("bundle-version") ?? "short"
                guard mode == "short" || mode == "build" else {
                    throw UsageError(message: "--bundle-version takes short or build, not '\(mode)'", commandPath: parsed.path)
                }
                let ipa = parsed.positionals[0]
                let app = try AppPackage.open(ipa).app
                let hasIcon = AppIcons(bundle: app).largest != nil
                let manifest = OTAManifest(
                    ipaURL: parsed.value("ipa-url") ?? URLEncoding.join(base, (ipa as NSString).lastPathComponent),
                    displayImageURL: hasIcon ? URLEncoding.join(base, "icon-57.png") : nil,
                    fullSizeImageURL: hasIcon ? URLEncoding.join(base, "icon-512.png") : nil,
                    bundleIdentifier: app.bundleIdentifier ?? "", bundleVersion: (mode == "build" ? app.buildVersion : app.shortVersion) ?? "",
                    title: app.displayName ?? (app.name as NSString).deletingPathExtension, subtitle: parsed.value("subtitle"))
                try FileIO.writeAtomically(try manifest.data(), to: parsed.value("output") ?? "manifest.plist")
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
            options: [baseURLOption, allowHTTPOption,
                      .value("-o", "--output", name: "DIR", help: "The folder to write (it will hold the ipa too)."),
                      .value("--notes", name: "FILE", help: "Release notes: plain text with paragraphs, '- ' lists and links."),
                      .value("--environment", name: "NAME", help: "The environment, shown as a badge and the manifest subtitle."),
                      .value("--commit", name: "SHA", help: "The commit (default: from the CI's environment)."),
                      .value("--branch", name: "NAME", help: "The branch (default: from the CI's environment)."),
                      .value("--templates", name: "DIR", help: "A folder of templates to use instead of the built-in ones."),
                      .value("--bundle-version", name: "short|build", help: "Which version goes in the manifest's bundle-version.")],
            run: { parsed in
                guard let base = parsed.value("base-url") else { throw UsageError(message: "missing --base-url URL", commandPath: parsed.path) }
                guard let output = parsed.value("output") else { throw UsageError(message: "missing -o DIR", commandPath: parsed.path) }
                var options = InstallPage.Options(baseURL: base)
                options.allowHTTP = parsed.flag("allow-http")
                options.environment = parsed.value("environment")
                if let notes = parsed.value("notes") {
                    options.notes = String(decoding: try FileIO.read(notes), as: UTF8.self)
                }
                options.commit = parsed.value("commit") ?? commit()
                options.branch = parsed.value("branch") ?? branch()
                options.templatesFolder = parsed.value("templates")
                options.useBuildNumberAsBundleVersion = parsed.value("bundle-version") == "build"
                let result = try InstallPage(options: options).write(ipa: parsed.positionals[0], to: output)
                for warning in result.warnings { Console.warning(warning) }
                Console.out("\(output)/index.html\n  page:    \(result.pageURL)\n  install: \(result.installURL)\n")
                return 0
            })
    }

    static var index: CommandSpec {
        CommandSpec(
            name: "index", abstract: "Write index.html for a folder of releases, grouped by environment, newest first.",
            arguments: [ArgumentSpec(name: "DIST", help: "The folder holding one subfolder per release (each with build.json).")],
            options: [.value("--title", name: "TEXT", help: "The page's title (default: Builds).")],
            run: { parsed in
                let root = parsed.positionals[0]
                let (releases, problems) = try BuildIndex.releases(in: root)
                for problem in problems { Console.warning(problem) }
                let html = try BuildIndex.html(releases, title: parsed.value("title") ?? "Builds", templates: try TemplateSet())
                try FileIO.writeAtomically(Data(html.utf8), to: (root as NSString).appendingPathComponent("index.html"))
                Console.out("\(root)/index.html: \(releases.count) release\(releases.count == 1 ? "" : "s")\n")
                return 0
            })
    }
}
