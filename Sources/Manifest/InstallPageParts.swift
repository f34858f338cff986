import Foundation
import IPAKit
import PlistKit
import SystemSupport

extension InstallPage {
    /// The page's files, made in memory and written together by `commit()` once every one of them
    /// was made, so a failure (a broken template, an unreadable icon) leaves the folder as it was:
    /// no new manifest beside an old page, pointing at an ipa that was never copied.
    struct PageOutput {
        var folder: String
        /// The files written, once committed.
        var files: [String] = []
        var warnings: [Diagnostic]
        private var pending: [(path: String, data: Data)] = []

        init(folder: String, warnings: [Diagnostic]) {
            self.folder = folder
            self.warnings = warnings
        }

        /// Adds `data` as `name` in the folder, to be written by `commit()`.
        mutating func write(_ data: Data, _ name: String) {
            pending.append(((folder as NSString).appendingPathComponent(name), data))
        }

        /// Makes the folder and writes every file under a temporary name, then runs `first` (the ipa's
        /// copy, which the manifest points to) and renames them all into place: a file that cannot be
        /// written (a folder named index.html) fails the page before the ipa is copied.
        mutating func commit(after first: () throws -> String?) throws {
            try FileIO.createFolder(folder)
            var copied: String?
            try FileIO.writeAtomically(together: pending) { copied = try first() }
            files = pending.map(\.path) + (copied.map { [$0] } ?? [])
        }
    }

    /// What the page, the feed and `build.json` say about the build.
    struct BuildFacts {
        var title: String
        var identifier: String
        var version: String
        var build: String
        var ipaSize: Int64
        /// When the build was made, when known (``Options/buildDate``).
        var buildDate: Date?
        var profile: ProvisioningProfile?

        init(app: AppBundle, ipa: String, title: String, options: Options) throws {
            let attributes = try? FileManager.default.attributesOfItem(atPath: ipa)
            self.title = title
            identifier = app.bundleIdentifier ?? ""
            version = app.shortVersion ?? "?"
            build = app.buildVersion ?? "?"
            ipaSize = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            buildDate = options.buildDate
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
