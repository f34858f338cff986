import Foundation
import IPAKit
import PlistKit
import SystemSupport

extension OTAManifest {
    /// The icons beside the manifest, at the sizes it promises.
    public static let displayImageName = "icon-57.png"
    public static let fullSizeImageName = "icon-512.png"

    /// Which version goes in the manifest's `bundle-version`.
    public enum BundleVersionSource: String, CaseIterable, Sendable {
        /// `CFBundleShortVersionString`, as Xcode's export writes it.
        case short
        /// `CFBundleVersion`, the build number.
        case build
    }

    /// The manifest for `app` served from `base` (a checked base URL): the ipa at `ipaURL`, the icons
    /// beside the manifest when `withIcons`, the title the app's display name unless given.
    /// Throws when the Info.plist lacks what the manifest must carry (the bundle identifier iOS
    /// installs by, the version as a string): a manifest with empty ones installs nothing.
    public init(
        app: AppBundle, base: String, ipaURL: String, withIcons: Bool, bundleVersion: BundleVersionSource,
        title: String? = nil, subtitle: String?
    ) throws {
        func required(_ key: String) throws -> String {
            switch app.info[key] {
            case .string(let text)? where !text.isEmpty: return text
            case nil: throw Diagnostic.manifest("the app's Info.plist has no \(key), which the manifest must carry")
            case .string?: throw Diagnostic.manifest("the app's Info.plist has an empty \(key), which the manifest must carry")
            case let value?:
                throw Diagnostic.manifest(
                    "the app's Info.plist has \(key) as \(value.kindWithArticle), not a string"
                )
            }
        }
        let identifier = try required("CFBundleIdentifier")
        let version = try required(bundleVersion == .build ? "CFBundleVersion" : "CFBundleShortVersionString")
        self.init(
            ipaURL: ipaURL,
            displayImageURL: withIcons ? URLEncoding.join(base, Self.displayImageName) : nil,
            fullSizeImageURL: withIcons ? URLEncoding.join(base, Self.fullSizeImageName) : nil,
            bundleIdentifier: identifier, bundleVersion: version,
            title: title ?? Self.title(of: app), subtitle: subtitle)
    }

    /// The name testers see: the display name, else the bundle's name, else the bundle folder's
    /// name without `.app` (an empty name counts as none).
    public static func title(of app: AppBundle) -> String {
        for key in ["CFBundleDisplayName", "CFBundleName"] {
            if let name = app.info[key]?.stringValue, !name.trimmingCharacters(in: .whitespaces).isEmpty { return name }
        }
        return (app.name as NSString).deletingPathExtension
    }

    /// What `adhocbuild manifest` writes, beside an ipa that is already published.
    public struct Request: Sendable {
        public var ipa: String
        public var baseURL: String
        public var allowHTTP = false
        /// The ipa's URL (default: the base URL and the ipa's file name).
        public var ipaURL: String?
        public var subtitle: String?
        public var bundleVersion: BundleVersionSource = .short
        /// The limits the ipa and its plists are read with.
        public var limits: ReaderLimits = .standard

        public init(ipa: String, baseURL: String) {
            self.ipa = ipa
            self.baseURL = baseURL
        }
    }

    /// Reads the ipa named in `request` and writes its manifest to `output` ('-' for standard output);
    /// returns the warnings.
    public static func write(_ request: Request, to output: String) throws -> [String] {
        let (base, warning) = try URLEncoding.baseURLWithWarning(request.baseURL, allowHTTP: request.allowHTTP)
        let warnings = warning.map { [$0] } ?? []
        let ipaURL = try request.ipaURL.map { try URLEncoding.ipaURL($0, allowHTTP: request.allowHTTP) }
        let package = try AppPackage.open(request.ipa, limits: request.limits)
        // The manifest would point at a folder, which no device can download.
        guard package.isArchive else { throw Diagnostic.notAnIPA(request.ipa) }
        let app = package.app
        // Only `page` writes the icons beside the manifest; a manifest alone names none, so that it
        // never points at images that are not there.
        let manifest = try inFile(request.ipa, only: ManifestProblem.self) {
            try OTAManifest(
                app: app, base: base, ipaURL: ipaURL ?? URLEncoding.join(base, (request.ipa as NSString).lastPathComponent),
                withIcons: false, bundleVersion: request.bundleVersion, subtitle: request.subtitle)
        }
        try FileIO.writeAtomically(try manifest.data(), to: output)
        return warnings
    }
}
