import AssetCatalog
import Foundation
import SystemSupport

/// The picture shown for an app on its install page, in its manifest and in the build index, and
/// where it came from.
public struct AppIconImage: Sendable {
    /// The icon as straight RGBA pixels (CgBI un-crushed, catalog pixels un-premultiplied).
    public var image: RGBAImage
    /// `AppIcon60x60@3x.png`, or `Assets.car 'AppIcon' icon-1.png 180x180 @3x iphone, ARGB lzfse`.
    public var source: String
    /// The catalog rendition it was decoded from; nil for an icon file.
    public var rendition: Rendition?
}

/// What looking for an app's icon found: the icon, or why there is none, and a line for each
/// catalog rendition that could not be decoded on the way.
public struct AppIconLookup: Sendable {
    public var icon: AppIconImage?
    /// One line per icon rendition that was passed over (its encoding is not decoded here, or it
    /// is damaged), and for a catalog that cannot be read.
    public var notices: [String]
    /// Why there is no icon, when ``icon`` is nil.
    public var missingReason: String
    /// The bundle's icon files, as found.
    public let files: AppIcons
    /// The catalog's icons, when the catalog was opened (the bundle has no readable icon file and
    /// its `Assets.car` could be read).
    public private(set) var catalog: CatalogIcons?

    /// The icon iOS shows for `bundle`: the largest readable PNG icon file, else the icon set in
    /// `Assets.car` (see ``CatalogIcons``). Never throws: a damaged catalog is a notice. `files`:
    /// the bundle's icon files when the caller has them already.
    public init(bundle: AppBundle, files: AppIcons? = nil) {
        self.files = files ?? AppIcons(bundle: bundle)
        notices = []
        for candidate in self.files.icons {
            if let data = try? bundle.read(candidate.path), let image = try? RGBAImage(pngData: data) {
                icon = AppIconImage(image: image, source: candidate.path)
                missingReason = ""
                return
            }
        }
        icon = nil
        missingReason = self.files.missingReason
        guard self.files.hasAssetCatalog else { return }
        do {
            guard let catalog = try CatalogIcons.load(bundle: bundle) else { return }
            self.catalog = catalog
            let decoded = catalog.decodeBest()
            notices = decoded.notices
            if let image = decoded.image, let rendition = decoded.rendition {
                icon = AppIconImage(image: image, source: "Assets.car " + catalog.describe(rendition), rendition: rendition)
            } else {
                missingReason = catalog.missingReason
            }
        } catch {
            notices = reportLines(for: error)
            missingReason = "its asset catalog (Assets.car) cannot be read"
        }
    }
}
