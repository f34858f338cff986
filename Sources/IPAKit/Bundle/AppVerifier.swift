import Foundation
import PlistKit
import SystemSupport

/// The pre-publish check of an ipa: everything that makes "Unable to download app" or
/// "Untrusted developer" happen on a tester's phone, found before anyone publishes.
public struct AppVerifier: Sendable {
    public var udids: [String]
    public var now: Date
    /// Profiles expiring sooner than this are warned about.
    public var warnWithin: TimeInterval = 14 * 86_400
    /// An expired profile is a warning, not an error (`release --allow-expired`).
    public var allowExpired = false
    /// Inflates every entry and checks it against its CRC (on by default). `release` turns it off
    /// for an ipa its packager has just written and checked entry by entry, so it is not read a
    /// second time for the same proof.
    public var checkEntries = true

    public init(udids: [String] = [], now: Date = Date()) {
        self.udids = udids
        self.now = now
    }

    public static let requiredKeys = ["CFBundleIdentifier", "CFBundleExecutable", "CFBundleVersion", "CFBundleShortVersionString"]

    /// The findings, errors and warnings, each a ``Diagnostic/finding(_:_:subject:)``.
    public func verify(_ package: AppPackage) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        func error(_ message: String, _ subject: String?) { findings.append(.finding(.error, message, subject: subject)) }
        func warning(_ message: String, _ subject: String?) { findings.append(.finding(.warning, message, subject: subject)) }
        let app = package.app
        // Every entry's data against its CRC: a damaged file outside what the signature seals (or
        // in an unsigned app) is found nowhere else.
        if checkEntries {
            for (name, problem) in package.damagedEntries() { error(problem, name) }
        }
        check(app, isMain: true, error: error, warning: warning)
        for nested in app.nested {
            check(nested, isMain: false, error: error, warning: warning)
            if let parent = app.bundleIdentifier, let child = nested.bundleIdentifier, !child.hasPrefix(parent + ".") {
                error("bundle identifier '\(child)' is not under the app's '\(parent)'", nested.root)
            }
            if nested.shortVersion != app.shortVersion {
                error(
                    "CFBundleShortVersionString \(nested.shortVersion ?? "(none)") differs from the app's \(app.shortVersion ?? "(none)")",
                    nested.root)
            }
            if nested.buildVersion != app.buildVersion {
                error(
                    "CFBundleVersion \(nested.buildVersion ?? "(none)") differs from the app's \(app.buildVersion ?? "(none)")", nested.root
                )
            }
        }
        return findings
    }

    private func check(_ bundle: AppBundle, isMain: Bool, error: (String, String?) -> Void, warning: (String, String?) -> Void) {
        let subject = bundle.root
        for key in AppVerifier.requiredKeys {
            switch bundle.info[key] {
            case .string(let text)? where !text.isEmpty: continue
            case nil: error("Info.plist has no \(key)", subject)
            case .string?: error("Info.plist has an empty \(key)", subject)
            case let value?:
                error(
                    "Info.plist has \(key) as \(value.kindWithArticle), not a string",
                    subject)
            }
        }
        if let executable = bundle.executableName {
            if let file = bundle.executable {
                if !file.isExecutable && !file.isSymlink { error("the executable '\(executable)' has no execute permission", subject) }
            } else {
                error("the executable '\(executable)' is missing", subject)
            }
        }
        if bundle.isSimulatorBuild {
            error("is a simulator build (\(bundle.platform ?? "simulator")); it cannot be installed on a device", subject)
        }
        guard let result = bundle.profile() else {
            error("has no embedded.mobileprovision; a device will not install it", subject)
            return
        }
        let profile: ProvisioningProfile
        switch result {
        case .failure(let failure): error("embedded.mobileprovision cannot be read: \(failure.message)", subject); return
        case .success(let value): profile = value
        }
        let label = "profile '\(profile.name)'"
        if profile.platforms.contains("OSX") && !profile.platforms.contains("iOS") {
            error("\(label) is a macOS profile", subject)
        }
        if let expiry = profile.expirationDate {
            let stamp = PlistDate(expiry).iso8601
            if expiry <= now, allowExpired {
                warning("\(label) expired on \(stamp); iOS will not install it (going on: --allow-expired)", subject)
            } else if expiry <= now {
                error("\(label) expired on \(stamp)", subject)
            } else if expiry.timeIntervalSince(now) < warnWithin {
                warning("\(label) expires on \(stamp), in \(profile.daysUntilExpiry(from: now) ?? 0) days", subject)
            }
        }
        if let identifier = bundle.bundleIdentifier, !profile.matches(bundleIdentifier: identifier) {
            error("\(label) is for App ID '\(profile.applicationIdentifier ?? "(none)")', which does not cover '\(identifier)'", subject)
        }
        if isMain && !profile.kind.installsOverTheAir {
            error(
                "\(label) is an App Store profile; an app signed with it cannot be installed over the air "
                    + "(use an ad-hoc, development or enterprise profile)", subject)
        }
        if isMain {
            for udid in udids where !profile.includes(device: udid) {
                error("device \(udid) is not in \(label) (\(profile.devices.count) devices)", subject)
            }
        }
    }
}
