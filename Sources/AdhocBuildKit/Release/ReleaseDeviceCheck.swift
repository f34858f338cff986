import CodeSign
import Foundation
import IPAKit
import Manifest
import SystemSupport

/// `release --devices STORE`: the build's profiles checked against the testers' device list. Each
/// listed device a bundle's profile lacks is a warning, or an error with `--require-devices`.
struct ReleaseDeviceCheck {
    /// The device list's file, as given.
    let store: String
    let required: Bool
    let devices: [DeviceRecord]

    /// Reads the list (a missing file is an error here: the release named it).
    init(store: String, required: Bool) throws {
        guard FileIO.kind(of: store) != nil else { throw Diagnostic.io("no such device list", file: store) }
        self.store = store
        self.required = required
        devices = try DeviceStore(path: store).load().devices
    }

    /// Before the build is copied, with `--require-devices`: the profiles the input embeds (the app's
    /// replaced by `profile`, the one the release embeds) must provision every listed device.
    /// Nothing is checked for an input that does not open as a build: the steps that read it say why.
    func checkInput(_ input: String, profile: String?, limits: ReaderLimits) throws {
        guard required, let app = (try? AppPackage.open(input, limits: limits))?.app else { return }
        let appProfile = try profile.map { try ProvisioningProfile(contentsOf: $0, limits: limits.plist) }
        try check(DeviceCoverage(app: app, devices: devices, appProfile: appProfile))
    }

    /// Before the build is copied, with `--require-devices`, when the release re-signs: the profiles
    /// `signing` will embed (each bundle's own where it gives none) must provision every listed device.
    /// `appID` is the bundle id the environment gives the app (its nested bundles follow it, as
    /// ``NestedBundleRetarget`` moves them), which picks each bundle's profile.
    func checkInput(_ input: String, signing: BundleSigningOptions, appID: String?, limits: ReaderLimits) throws {
        guard required, let app = (try? AppPackage.open(input, limits: limits))?.app else { return }
        let retarget = appID.flatMap { new in app.bundleIdentifier.map { NestedBundleRetarget(old: $0, new: new) } }
        try check(
            DeviceCoverage(app: app, devices: devices) { bundle, isOutermost in
                let id = bundle.bundleIdentifier ?? ""
                let signedAs = isOutermost ? appID ?? id : retarget?.retargeted(id) ?? id
                return signing.profile(for: signedAs, isOutermost: isOutermost)?.profile
            })
    }

    /// Throws the coverage's gaps as errors.
    private func check(_ coverage: DeviceCoverage) throws {
        let errors = coverage.findings(required: true, store: store)
        if !errors.isEmpty { throw Diagnostics(errors) }
    }

    /// The published build's coverage: throws the errors with `--require-devices`, else returns the
    /// warnings, and how many listed devices it reaches.
    func check(_ app: AppBundle) throws -> (reach: BuildInfo.DeviceReach, warnings: [Diagnostic]) {
        let coverage = DeviceCoverage(app: app, devices: devices)
        let findings = coverage.findings(required: required, store: store)
        if required && !findings.isEmpty { throw Diagnostics(findings) }
        return (BuildInfo.DeviceReach(reached: coverage.reached, listed: coverage.listed), findings)
    }
}
