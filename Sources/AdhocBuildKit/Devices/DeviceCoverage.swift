import Foundation
import IPAKit
import SystemSupport

/// Which listed devices a build installs on: for the app and each bundle nested in it (extensions,
/// Watch apps, App Clips), the listed devices its embedded profile does not provision.
///
/// A device is expected only on its own platform: an iOS profile is checked against the listed
/// iPhones and iPads, a macOS profile against the Macs. An enterprise profile (`ProvisionsAllDevices`)
/// covers every device; an App Store profile none (it installs only through the App Store). A device
/// the app reaches is one every bundle's profile provisions.
public struct DeviceCoverage: Sendable, Equatable {
    /// A listed device one bundle's profile lacks.
    public struct Gap: Sendable, Equatable {
        /// The bundle's path in the build (`Payload/Demo.app/PlugIns/Share.appex`).
        public var bundle: String
        public var profile: String
        public var device: DeviceRecord
    }

    /// How many listed devices of the app's platform there are.
    public var listed: Int
    /// How many of them every bundle's profile provisions.
    public var reached: Int
    public var gaps: [Gap]
    /// Bundles whose profile covers no device at all, each with why (an App Store profile, none
    /// embedded, one that cannot be read).
    public var uncovered: [Uncovered]

    /// A bundle whose profile provisions no device, and why.
    public struct Uncovered: Sendable, Equatable {
        public var bundle: String
        public var reason: String
    }

    /// The coverage of `devices` by `app` and the bundles nested in it, as their embedded profiles say;
    /// `appProfile`, when given, stands for the app's own (the profile `release --profile` embeds).
    public init(app: AppBundle, devices: [DeviceRecord], appProfile: ProvisioningProfile? = nil) {
        self.init(app: app, devices: devices) { _, isOutermost in isOutermost ? appProfile : nil }
    }

    /// The coverage of `devices` by `app` and the bundles nested in it, each bundle's profile being
    /// `replacement(bundle, isOutermost)` when that is not nil (the profile re-signing embeds), else its own.
    public init(
        app: AppBundle, devices: [DeviceRecord], replacement: (_ bundle: AppBundle, _ isOutermost: Bool) -> ProvisioningProfile?
    ) {
        func profile(_ bundle: AppBundle, _ isOutermost: Bool) -> Result<ProvisioningProfile, Diagnostic>? {
            replacement(bundle, isOutermost).map { .success($0) } ?? bundle.profile()
        }
        let bundles = [(app, profile(app, true))] + app.nested.map { ($0, profile($0, false)) }
        let platform = Self.platform(of: try? bundles[0].1?.get())
        let expected = devices.filter { $0.platform == platform }
        var gaps: [Gap] = []
        var uncovered: [Uncovered] = []
        var unreached = Set<String>()
        for (bundle, profile) in bundles {
            switch profile {
            case nil:
                uncovered.append(Uncovered(bundle: bundle.root, reason: "has no embedded provisioning profile"))
            case .failure(let error)?:
                uncovered.append(Uncovered(bundle: bundle.root, reason: "its provisioning profile cannot be read: \(error.message)"))
            case .success(let profile)? where profile.kind == .appStore:
                uncovered.append(
                    Uncovered(
                        bundle: bundle.root,
                        reason: "profile '\(profile.name)' is an App Store profile, which provisions no device for installing over the air")
                )
            case .success(let profile)?:
                for device in expected where !profile.includes(device: device.udid) {
                    gaps.append(Gap(bundle: bundle.root, profile: profile.name, device: device))
                    unreached.insert(device.udid.uppercased())
                }
            }
        }
        listed = expected.count
        reached = uncovered.isEmpty ? expected.count - unreached.count : 0
        self.gaps = gaps
        self.uncovered = uncovered
    }

    /// The platform whose devices a profile provisions: `mac` for a macOS-only profile, `ios` otherwise.
    static func platform(of profile: ProvisioningProfile?) -> DeviceRecord.Platform {
        guard let platforms = profile?.platforms, platforms.contains("OSX"), !platforms.contains("iOS") else { return .ios }
        return .mac
    }

    /// One line per gap and per uncovered bundle, as errors when every listed device is `required`
    /// (`release --require-devices`), else as warnings. `store` names the device list.
    public func findings(required: Bool, store: String) -> [Diagnostic] {
        let severity: Diagnostic.Severity = required ? .error : .warning
        let count = "\(listed) listed device\(listed == 1 ? "" : "s") of \(store)"
        return uncovered.map { Diagnostic.build("\($0.bundle) installs on none of the \(count): \($0.reason)", severity: severity) }
            + gaps.map { gap in
                Diagnostic.build(
                    "device '\(gap.device.name)' (\(gap.device.udid)) of \(store) is not in profile '\(gap.profile)' of \(gap.bundle); "
                        + "it cannot install this build", severity: severity)
            }
    }
}
