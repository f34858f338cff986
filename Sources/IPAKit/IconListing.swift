import AssetCatalog
import Foundation

/// What `adhocbuild icon list` shows: the app's icon files and the renditions of its icon set in
/// `Assets.car`, with the one the install page uses marked.
public struct IconListing: Sendable {
    /// One icon file or rendition.
    public struct Entry: Sendable, Equatable {
        /// `AppIcon60x60@3x.png 180x180`, or `'AppIcon' icon-1.png 180x180 @3x iphone, ARGB lzfse`.
        public var text: String
        /// True for the icon the install page and manifest are made from.
        public var isShown: Bool
    }

    /// The bundle's icon PNG files, largest first.
    public var files: [Entry]
    /// The icon set names looked up in the catalog (empty when the bundle has no `Assets.car`).
    public var iconNames: [String]
    /// Every rendition of those icon sets with a size, in catalog order.
    public var renditions: [Entry]
    /// Renditions that were passed over because they could not be decoded.
    public var notices: [String]
    /// Why no icon is shown, when none is.
    public var missingReason: String?

    /// Lists the icons of the app in `package` (`.ipa`, `.app` or `.xcarchive`). A catalog that
    /// cannot be read is an error naming it.
    public static func list(_ package: String) throws -> IconListing {
        let app = try AppPackage.open(package).app
        let lookup = AppIconLookup(bundle: app)
        let files = lookup.files.icons.map {
            Entry(text: "\($0.path) \($0.width)x\($0.height)\($0.isCgBI ? " (CgBI)" : "")", isShown: $0.path == lookup.icon?.source)
        }
        var listing = IconListing(
            files: files, iconNames: [], renditions: [], notices: lookup.notices,
            missingReason: lookup.icon == nil ? lookup.missingReason : nil)
        // The lookup opened the catalog unless an icon file came first; a catalog it could not read
        // is opened again here, to fail with its error.
        guard let catalog = try lookup.catalog ?? CatalogIcons.load(bundle: app) else { return listing }
        listing.iconNames = catalog.iconNames
        for name in catalog.iconNames {
            for rendition in catalog.catalog.renditions(named: name) where rendition.width > 0 && rendition.height > 0 {
                listing.renditions.append(Entry(text: catalog.describe(rendition), isShown: rendition == lookup.icon?.rendition))
            }
        }
        return listing
    }
}
