import Foundation
import IPAKit
import PlistKit
import SystemSupport

extension InstallPage {
    /// Where everything is served from.
    struct Links {
        var page: String
        var manifest: String
        var ipa: String
        var install: String

        init(base: String, ipaName: String) {
            page = base
            manifest = URLEncoding.join(base, "manifest.plist")
            ipa = URLEncoding.join(base, ipaName)
            install = URLEncoding.installLink(manifestURL: manifest)
        }
    }

    /// The files written so far into the page's folder, and the warnings.
    struct PageOutput {
        var folder: String
        var files: [String] = []
        var warnings: [String]

        init(folder: String, warnings: [String]) {
            self.folder = folder
            self.warnings = warnings
        }

        /// Writes `data` atomically as `name` in the folder.
        mutating func write(_ data: Data, _ name: String) throws {
            let path = (folder as NSString).appendingPathComponent(name)
            try FileIO.writeAtomically(data, to: path)
            files.append(path)
        }
    }

    /// What the page, the feed and `build.json` say about the build.
    struct BuildFacts {
        var title: String
        var identifier: String
        var version: String
        var build: String
        var ipaSize: Int64
        var buildDate: Date
        var profile: ProvisioningProfile?

        init(app: AppBundle, ipa: String, title: String, options: Options) throws {
            let attributes = try? FileManager.default.attributesOfItem(atPath: ipa)
            self.title = title
            identifier = app.bundleIdentifier ?? ""
            version = app.shortVersion ?? "?"
            build = app.buildVersion ?? "?"
            ipaSize = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            buildDate = options.buildDate ?? (attributes?[.modificationDate] as? Date) ?? options.now
            if case .success(let profile)? = app.profile() { self.profile = profile }
        }
    }

    /// Whether a tester can install the build from the page, and why not; whether its profile
    /// expires within 14 days.
    struct Installability {
        var canInstall = true
        var reason = ""
        var expiringSoon = false

        init(app: AppBundle, profile: ProvisioningProfile?, now: Date) {
            if let profile {
                if let expires = profile.expirationDate, expires <= now {
                    refuse(
                        "This build cannot be installed: its provisioning profile expired on \(InstallPage.format(expires)). "
                            + "Ask the team for a new build.")
                } else if let expires = profile.expirationDate, expires.timeIntervalSince(now) < 14 * 86_400 {
                    expiringSoon = true
                }
                if !profile.kind.installsOverTheAir {
                    refuse("This build is signed for the App Store and cannot be installed from this page.")
                }
            }
            if app.isSimulatorBuild { refuse("This is a simulator build; it cannot be installed on an iPhone or iPad.") }
        }

        mutating func refuse(_ why: String) {
            canInstall = false
            reason = why
        }
    }
}
