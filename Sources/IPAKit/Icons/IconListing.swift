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
    /// The alternate icons the app declares, each with its renditions or files.
    public var alternates: [Alternate] = []

    /// An alternate icon and what the bundle holds of it.
    public struct Alternate: Sendable, Equatable {
        public var icon: AlternateIcon
        /// Its icon set's renditions (with a size, in catalog order), then its PNG files (largest first).
        public var entries: [Entry]
    }

    /// Lists the icons of the app in `package` (`.ipa`, `.app` or `.xcarchive`). A catalog that
    /// cannot be read is an error naming it. The package is read with `limits`.
    public static func list(_ package: String, limits: ReaderLimits = .standard) throws -> IconListing {
        let app = try AppPackage.open(package, limits: limits).app
        let lookup = AppIconLookup(bundle: app)
        let files = lookup.files.icons.map { Entry(text: $0.description, isShown: $0.path == lookup.icon?.source) }
        var listing = IconListing(
            files: files, iconNames: [], renditions: [], notices: lookup.notices,
            missingReason: lookup.icon == nil ? lookup.missingReason : nil)
        // The lookup opened the catalog unless an icon file came first; a catalog it could not read
        // is opened again here, to fail with its error.
        let catalog = try lookup.catalog ?? CatalogIcons.load(bundle: app)
        let sized = { (name: String) in catalog?.catalog.renditions(named: name).filter { $0.width > 0 && $0.height > 0 } ?? [] }
        if let catalog {
            listing.iconNames = catalog.iconNames
            for name in catalog.iconNames {
                for rendition in sized(name) {
                    listing.renditions.append(Entry(text: catalog.describe(rendition), isShown: rendition == lookup.icon?.rendition))
                }
            }
        }
        listing.alternates = AlternateIcon.declared(in: app.info).map { icon in
            var entries: [Entry] = []
            if let name = icon.iconSetName, let catalog {
                entries = sized(name).map { Entry(text: catalog.describe($0), isShown: false) }
            }
            entries += AppIcons.files(named: icon.fileNames, in: app, orNamedIcon: false).map {
                Entry(text: $0.description, isShown: false)
            }
            return Alternate(icon: icon, entries: entries)
        }
        return listing
    }
}

extension AppIcons.Icon: CustomStringConvertible {
    /// `AppIcon60x60@3x.png 180x180`, with ` (CgBI)` for Xcode's crushed PNGs.
    public var description: String { "\(path) \(width)x\(height)\(isCgBI ? " (CgBI)" : "")" }
}
