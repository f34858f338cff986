import AssetCatalog
import CodeSign
import Foundation
import IPAKit
import Manifest
import PlistKit
import SystemSupport

/// What a release checks before DIST is changed or the build is copied: every input, the device list,
/// the build number, the profile, the signing identity and what publishing will write.
extension ReleasePipeline {
    /// Runs every check that comes before the build is copied, each as a step of its own, and returns
    /// what the rest of the release uses: the device list, the enrollment link, the signing options and
    /// the publication into DIST.
    func checkBeforeCopying(_ environment: ResolvedEnvironment) throws -> (
        deviceCheck: ReleaseDeviceCheck?, enrollURL: String?, signing: BundleSigningOptions?, publication: ReleasePublication
    ) {
        // Every input is checked before anything is copied or packaged: the base URL (with stand-ins
        // for the version and build, which are known only after packaging) and each file named.
        _ = try step("Check the base URL") { try releaseBaseURL(environment: environment.name, version: "1.0", build: "1") }
        try step("Check the input files") { try checkInputFiles() }
        let deviceCheck = try options.devices.map { store in
            try step("Check the device list") {
                let check = try ReleaseDeviceCheck(store: store, required: options.requireDevices)
                // A build that is re-signed gets its profiles from the signing request: checked once it is loaded.
                if options.signing == nil { try check.checkInput(options.input, profile: options.profile, limits: options.limits) }
                return check
            }
        }
        let enrollURL = try options.enrollURL.map { url in
            try step("Check the enrollment URL") { try URLEncoding.linkURL(url, what: "enrollment URL", allowHTTP: options.allowHTTP) }
        }
        try step("Check the build number") { _ = try buildNumberRequest.map(checkedBuildNumber) }
        if options.signing == nil {
            // Re-signing checks the profiles it embeds (an expired one is refused, whatever the flags).
            try step("Check the provisioning profile") { try checkProfileExpiry() }
        }
        let signing = try options.signing.map { request in
            try step("Load the signing identity") {
                try request.options(now: options.now, embedding: options.profile, limits: options.limits.plist)
            }
        }
        if let deviceCheck, let signing {
            try step("Check the device list") {
                try deviceCheck.checkInput(
                    options.input, signing: signing, appID: environment.info["CFBundleIdentifier"]?.stringValue, limits: options.limits)
            }
        }
        // What publishing will write is checked before DIST is first changed (a `latest` that is a folder
        // failed only after the release was published, and every retry was refused as already published).
        let publication = ReleasePublication(out: options.out, environment: environment.name)
        try step("Check \(options.out)") {
            try publication.check()
            // A release already published is refused before the build is copied (and again when publishing).
            if let name = try expectedReleaseName(environment: environment) {
                try publication.checkNotPublished(name, replace: options.replace)
                try options.upload?.checkNotPublished(environment: environment.name, name: name)
            }
        }
        return (deviceCheck, enrollURL, signing, publication)
    }

    /// The build, notes, icon and profile named in the options: each there and readable as what it
    /// should be, so a mistake in one is reported before the build is copied and packaged.
    func checkInputFiles() throws {
        let input = options.input
        guard let kind = FileIO.kind(of: input) else { throw Diagnostic.io("no such file or folder", file: input) }
        // What the copy and the packager would stop at (a FIFO the copy waited on forever) names the input.
        if kind == .folder {
            try IPAPackager.checkContents(of: input)
        } else {
            _ = try UnpackedApp.locate(input, limits: options.limits.archive)
        }
        // DIST inside the build would be copied with it, into itself, until the path is too long.
        try OutputPlacement.checkOutside(options.out, input: input)
        if let notes = options.notes { _ = try FileIO.read(notes, limit: InputLimits.releaseNotes) }
        if let icon = options.icon {
            do { _ = try RGBAImage(pngData: try FileIO.read(icon, limit: InputLimits.image)) } catch let error as Diagnostic
                where error.code == .ipa(.image)
            {
                throw Diagnostic.io("is not a readable PNG: \(error.description)", file: icon)
            }
        }
        if let profile = options.profile { _ = try ProvisioningProfile(contentsOf: profile, limits: options.limits.plist) }
    }

    /// The profile the release publishes (`--profile`, else the build's own) must not have expired by
    /// `options.now`: iOS would not install the build, and its page would say so. With `allowExpired`
    /// it goes on, and the Verify step warns.
    func checkProfileExpiry() throws {
        let profile: ProvisioningProfile
        let file: String
        if let given = options.profile {
            (profile, file) = (try ProvisioningProfile(contentsOf: given, limits: options.limits.plist), given)
        } else {
            // An input that does not open as a build is for the steps that read it to name.
            guard case .success(let own)? = (try? AppPackage.open(options.input, limits: options.limits))?.app.profile() else { return }
            (profile, file) = (own, options.input)
        }
        guard !options.allowExpired, let expires = profile.expirationDate, expires <= options.now else { return }
        var error = Diagnostic.build(
            "the provisioning profile \"\(profile.name)\"\(file == options.input ? " it embeds" : "") expired on "
                + "\(PlistDate(expires).iso8601); iOS will not install the build, and its page would say it cannot be installed",
            file: file)
        error.hint = "give a current profile (--profile, or re-sign with --sign-profile), or pass --allow-expired to publish it anyway"
        throw error
    }

    /// The build number a request sets, checked as the version bumper checks it, so a bad one (from the
    /// CI's counter, named) is refused before the build is copied.
    func checkedBuildNumber(_ request: VersionBumper.NewValue) throws -> String? {
        switch request {
        case .exactly(let text):
            guard BundleVersion(text) != nil else { throw Diagnostic.build(BundleVersion.problem(text, field: VersionField.build.label)) }
            return text
        case .fromCI(let environment): return try VersionBumper.ciBuildNumber(environment)
        case .increment, .bump: return nil
        }
    }

    /// What `options.buildNumber` asks the version bumper for; nil to leave it alone.
    var buildNumberRequest: VersionBumper.NewValue? {
        switch options.buildNumber {
        case .unchanged: return nil
        case .exactly(let value): return .exactly(value)
        case .fromCI: return .fromCI(options.processEnvironment)
        }
    }

}
