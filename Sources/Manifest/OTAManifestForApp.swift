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
    public init(
        app: AppBundle, base: String, ipaURL: String, withIcons: Bool, bundleVersion: BundleVersionSource,
        title: String? = nil, subtitle: String?
    ) {
        self.init(
            ipaURL: ipaURL,
            displayImageURL: withIcons ? URLEncoding.join(base, Self.displayImageName) : nil,
            fullSizeImageURL: withIcons ? URLEncoding.join(base, Self.fullSizeImageName) : nil,
            bundleIdentifier: app.bundleIdentifier ?? "",
            bundleVersion: (bundleVersion == .build ? app.buildVersion : app.shortVersion) ?? "",
            title: title ?? Self.title(of: app), subtitle: subtitle)
    }

    /// The name testers see: the display name, else the bundle's name without `.app`.
    public static func title(of app: AppBundle) -> String {
        app.displayName ?? (app.name as NSString).deletingPathExtension
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
        let app = try AppPackage.open(request.ipa).app
        let manifest = OTAManifest(
            app: app, base: base,
            ipaURL: request.ipaURL ?? URLEncoding.join(base, (request.ipa as NSString).lastPathComponent),
            withIcons: AppIconLookup(bundle: app).icon != nil, bundleVersion: request.bundleVersion,
            subtitle: request.subtitle)
        try FileIO.writeAtomically(try manifest.data(), to: output)
        return warnings
    }
}
