import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// What `codesign sign` is asked to sign with: a p12 identity and its password source, the profiles
/// (one for the app, one per nested bundle id), entitlements to use instead of the profile's.
public struct SigningRequest: Sendable {
    /// The `.p12` holding the signing certificate and its key.
    public var identity: String
    public var password: PasswordSource
    /// More certificates for the chain (PEM), beyond those in the p12.
    public var chain: String?
    /// The app's profile (`--profile FILE`).
    public var appProfile: String?
    /// Profiles by bundle id (`--profile com.example.app.share=FILE`).
    public var profiles: [String: String]
    /// The app's entitlements (`--entitlements PLIST`), instead of those derived from its profile.
    public var entitlements: String?

    public init(
        identity: String, password: PasswordSource, chain: String? = nil, appProfile: String? = nil, profiles: [String: String] = [:],
        entitlements: String? = nil
    ) {
        self.identity = identity
        self.password = password
        self.chain = chain
        self.appProfile = appProfile
        self.profiles = profiles
        self.entitlements = entitlements
    }

    /// Parses `--profile` values: `FILE` for the app, `BUNDLE_ID=FILE` for a nested bundle. A bundle id
    /// given twice, or two files for the app, is an error.
    public static func profiles(_ values: [String]) throws -> (app: String?, byBundleID: [String: String]) {
        var app: String?
        var byBundleID: [String: String] = [:]
        for value in values {
            if let equals = value.firstIndex(of: "="), !value[..<equals].contains("/") {
                let identifier = String(value[..<equals]), file = String(value[value.index(after: equals)...])
                guard byBundleID[identifier] == nil else {
                    throw AdhocBuildError("--profile names \(identifier) twice (\(byBundleID[identifier]!) and \(file))")
                }
                byBundleID[identifier] = file
            } else {
                guard app == nil else { throw AdhocBuildError("--profile gives two profiles for the app (\(app!) and \(value))") }
                app = value
            }
        }
        return (app, byBundleID)
    }

    /// Reads the identity, the profiles and the entitlements: the options the signer takes.
    public func options(now: Date = Date()) throws -> BundleSigningOptions {
        let identity = try SigningIdentity(p12: identity, password: password, chainPEM: chain)
        var entitlementsValue: PlistDictionary?
        if let entitlements {
            guard let dictionary = try PropertyList(contentsOf: entitlements).value.dictionaryValue else {
                throw AdhocBuildError("is not a dictionary of entitlements", file: entitlements)
            }
            entitlementsValue = dictionary
        }
        var options = BundleSigningOptions(
            identity: identity, appProfile: try appProfile.map(ProfileFile.init(path:)),
            profiles: try profiles.mapValues(ProfileFile.init(path:)), entitlements: entitlementsValue, now: now)
        options.entitlementsFile = entitlements
        return options
    }
}

/// `codesign sign`: signs an `.app`, `.ipa` or `.xcarchive` into a new one (or over the input), all or
/// nothing. The input is copied (an `.ipa` unpacked) into a temporary folder beside the output, signed
/// there, and renamed over the output (an `.ipa` packaged to it) only when every piece of code is signed:
/// a refusal or a failure halfway leaves the input and the output as they were.
public enum AppSigning {
    /// Signs `input` into `output` (nil: over the input). Returns what was signed.
    public static func sign(_ input: String, output: String? = nil, options: BundleSigningOptions) throws -> BundleSigningReport {
        let source = input.hasSuffix("/") ? String(input.dropLast()) : input
        let target = output.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? source
        guard FileIO.kind(of: source) != nil else { throw AdhocBuildError("no such app, ipa or archive", file: input) }
        let isIPA = FileIO.kind(of: source) == .file
        let outputIsIPA = target.hasSuffix(".ipa")
        guard isIPA || !outputIsIPA || output != nil else { throw AdhocBuildError("cannot be signed in place", file: input) }
        let parent = (target as NSString).deletingLastPathComponent.isEmpty ? "." : (target as NSString).deletingLastPathComponent
        let work = FileIO.temporaryPath(for: target)
        guard FileIO.kind(of: parent) == .folder else { throw AdhocBuildError("cannot be written: no folder \(parent)", file: target) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: work) }
        _ = parent

        let copy: String
        if isIPA {
            try ZipArchiveReader(path: source).extract(to: work)
            let apps = ((try? FileManager.default.contentsOfDirectory(atPath: work + "/Payload")) ?? []).filter { $0.hasSuffix(".app") }
            guard apps.count == 1 else {
                throw AdhocBuildError(apps.isEmpty ? "holds no Payload/*.app" : "holds \(apps.count) apps in Payload", file: input)
            }
            copy = work + "/Payload/" + apps[0]
        } else {
            copy = work + "/" + (source as NSString).lastPathComponent
            try copyTree(source, to: copy)
        }
        let app = try IPAPackager.locateApp(isIPA ? copy : copy).app
        let report: BundleSigningReport
        do {
            report = try BundleSigner.sign(bundle: app, options: options)
        } catch let error as CodeSignError {
            throw error.relocated(from: work + "/", to: "")
        }
        if outputIsIPA {
            var packaging = IPAPackager.Options()
            packaging.verify = true
            _ = try IPAPackager(options: packaging).package(copy, to: target)
        } else if isIPA {
            throw AdhocBuildError("an .ipa is signed into an .ipa; name the output something.ipa", file: target)
        } else {
            try replace(target, with: copy)
        }
        return report
    }

    /// Copies the folder `source` to `destination`, links as links, permissions kept.
    static func copyTree(_ source: String, to destination: String) throws {
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        } catch {
            throw AdhocBuildError("cannot be copied to sign: \(error.localizedDescription)", file: source)
        }
    }

    /// Puts the folder `replacement` at `target`: renamed over it, the old one removed after.
    static func replace(_ target: String, with replacement: String) throws {
        let manager = FileManager.default
        guard FileIO.kind(of: target) != nil else {
            guard rename(replacement, target) == 0 else {
                throw AdhocBuildError("cannot be written: \(SystemError.describe(errno))", file: target)
            }
            return
        }
        let old = FileIO.temporaryPath(for: target)
        guard rename(target, old) == 0 else { throw AdhocBuildError("cannot be replaced: \(SystemError.describe(errno))", file: target) }
        guard rename(replacement, target) == 0 else {
            let code = errno
            _ = rename(old, target)
            throw AdhocBuildError("cannot be replaced: \(SystemError.describe(code))", file: target)
        }
        try? manager.removeItem(atPath: old)
    }
}

extension CodeSignError {
    /// The same error with the temporary folder's prefix taken off the file it names.
    func relocated(from prefix: String, to replacement: String) -> CodeSignError {
        var copy = self
        if let file, file.hasPrefix(prefix) { copy.file = replacement + file.dropFirst(prefix.count) }
        return copy
    }
}
