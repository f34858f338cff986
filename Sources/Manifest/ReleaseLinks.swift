import Foundation
import PlistKit

/// Where an install page and its manifest send testers: the page itself, the manifest and the
/// install link, the ipa, the icons, the stylesheet and the script.
///
/// A page written to a folder served as it is links its own files by name (``beside(base:ipaName:)``):
/// the stylesheet, the script and the icons are relative to the page, while the manifest, which iOS
/// reads from elsewhere, names everything absolutely. A page published to an object store links
/// every file absolutely (``init(ipaName:link:)``), by presigned URLs that a relative link could
/// not carry, or under a public base.
public struct ReleaseLinks: Sendable, Equatable {
    /// The page's own address: CI outputs and the QR code name it.
    public var page: String
    public var manifest: String
    /// `itms-services://?action=download-manifest&url=` and the manifest's URL as a query value.
    public var install: String
    /// The ipa, as the manifest names it.
    public var ipa: String
    /// The icons as the manifest names them.
    public var displayImage: String
    public var fullSizeImage: String
    /// What the page links: its stylesheet and script, its favicon (the small icon) and the large icon.
    public var style: String
    public var script: String
    public var favicon: String
    public var icon: String

    /// Links for a page served from `base` (a checked base URL, ending in `/`) beside its files.
    public static func beside(base: String, ipaName: String) -> ReleaseLinks {
        // The page by its file name, not its folder: Jenkins and TeamCity show a folder's listing,
        // not its index.html, and this link goes to CI outputs and the QR code.
        let manifest = URLEncoding.join(base, "manifest.plist")
        return ReleaseLinks(
            page: URLEncoding.join(base, "index.html"), manifest: manifest, install: URLEncoding.installLink(manifestURL: manifest),
            ipa: URLEncoding.join(base, ipaName), displayImage: URLEncoding.join(base, OTAManifest.displayImageName),
            fullSizeImage: URLEncoding.join(base, OTAManifest.fullSizeImageName), style: InstallPage.stylesheetName,
            script: InstallPage.scriptName, favicon: OTAManifest.displayImageName, icon: OTAManifest.fullSizeImageName)
    }

    /// Every link absolute, each file's from `link(name)` (a presigned URL, or a public one): the
    /// page is `index.html`, the manifest `manifest.plist`, the ipa `ipaName`.
    public init(ipaName: String, link: (String) throws -> String) rethrows {
        let manifest = try link("manifest.plist")
        let small = try link(OTAManifest.displayImageName), large = try link(OTAManifest.fullSizeImageName)
        self.init(
            page: try link("index.html"), manifest: manifest, install: URLEncoding.installLink(manifestURL: manifest),
            ipa: try link(ipaName), displayImage: small, fullSizeImage: large, style: try link(InstallPage.stylesheetName),
            script: try link(InstallPage.scriptName), favicon: small, icon: large)
    }

    /// Sets the fields of `build.json` that hold links.
    public func apply(to info: inout BuildInfo) {
        info.pageURL = page
        info.manifestURL = manifest
        info.ipaURL = ipa
        info.installURL = install
    }

    /// Sets the keys of `version.json` (the in-app update feed) that hold links.
    public func apply(to feed: inout PlistDictionary) {
        feed["pageURL"] = .string(page)
        feed["manifestURL"] = .string(manifest)
        feed["ipaURL"] = .string(ipa)
        feed["installURL"] = .string(install)
    }

    public init(
        page: String, manifest: String, install: String, ipa: String, displayImage: String, fullSizeImage: String, style: String,
        script: String, favicon: String, icon: String
    ) {
        self.page = page
        self.manifest = manifest
        self.install = install
        self.ipa = ipa
        self.displayImage = displayImage
        self.fullSizeImage = fullSizeImage
        self.style = style
        self.script = script
        self.favicon = favicon
        self.icon = icon
    }
}
