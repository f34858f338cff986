import AssetCatalog
import Foundation
import PlistKit
import SystemSupport

/// The app icon kept in an app's compiled asset catalog (`Assets.car`), where current Xcode
/// puts it instead of PNG files, and the rendition iOS would show on the Home Screen.
///
/// The icon set is the facet the Info.plist names in `CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconName`,
/// then in `CFBundleIcons~ipad`; a catalog whose app names none is searched for a facet called
/// `AppIcon`. Of its renditions, those for the default appearance (any or light) come first, then
/// the largest in pixels, then iPhone before iPad before the rest, then the higher scale.
public struct CatalogIcons: Sendable {
    /// The catalog, opened under the name `App.ipa: Payload/App.app/Assets.car` (or the file's path
    /// for an app folder), which its errors and notices begin with.
    public let catalog: AssetCatalog
    /// The icon set names the Info.plist gives (primary, then iPad), or `AppIcon` when it gives none.
    public let iconNames: [String]
    /// Every bitmap rendition of those icon sets, best first.
    public let candidates: [Rendition]

    /// The catalog icons of `bundle`; nil when the bundle has no `Assets.car`. A damaged catalog
    /// throws an `Diagnostic` naming it.
    public static func load(bundle: AppBundle) throws -> CatalogIcons? {
        guard bundle.file("Assets.car") != nil else { return nil }
        // Named as the user knows it: `App.ipa: Payload/App.app/Assets.car`, or the path of the folder's file.
        let name = bundle.storage.displayName(of: bundle.root + "/Assets.car")
        let data: Data
        do { data = try bundle.read("Assets.car") } catch let error as Diagnostic {
            throw Diagnostic.assetCatalog("cannot be read: \(error.message)", file: name)
        } catch {
            throw Diagnostic.assetCatalog("cannot be read: \(FoundationError.line(error))", file: name)
        }
        return CatalogIcons(catalog: try AssetCatalog(bytes: [UInt8](data), file: name), info: bundle.info)
    }

    /// The icon renditions of `catalog` for an app whose Info.plist is `info`.
    public init(catalog: AssetCatalog, info: PlistDictionary) {
        self.catalog = catalog
        var names: [String] = []
        for key in ["CFBundleIcons", "CFBundleIcons~ipad"] {
            if let name = info[keyPath: [key, "CFBundlePrimaryIcon", "CFBundleIconName"]]?.stringValue, !names.contains(name) {
                names.append(name)
            }
        }
        if names.isEmpty { names = ["AppIcon"] }
        iconNames = names
        var found: [Rendition] = []
        for name in names {
            found += catalog.renditions(named: name).filter { rendition in
                guard rendition.width > 0, rendition.height > 0 else { return false }
                if case .pixels = rendition.payload { return true }
                return rendition.header.internalReference != nil
            }
        }
        func rank(_ rendition: Rendition) -> (Int, Int, Int, Int) {
            let idiom: Int
            switch rendition.idiom {
            case .phone?, .universal?: idiom = 0
            case .pad?: idiom = 1
            default: idiom = 2
            }
            return (catalog.isDefaultAppearance(rendition) ? 0 : 1, -rendition.width * rendition.height, idiom, -rendition.scale)
        }
        candidates = found.enumerated().sorted { first, second in
            let (a, b) = (rank(first.element), rank(second.element))
            return a != b ? a < b : first.offset < second.offset
        }.map(\.element)
    }

    /// What ``decodeBest()`` found: the image and the rendition it came from, or nil with the
    /// reasons; `notices` has one line for each better rendition that could not be decoded.
    public struct Decoded: Sendable {
        public var image: RGBAImage?
        public var rendition: Rendition?
        public var notices: [String]
    }

    /// Decodes the best candidate that can be decoded, LZFSE and LZVN with the built-in decoders.
    public func decodeBest() -> Decoded {
        let decoder = RenditionDecoder.withBuiltInDecompressors(catalog)
        var notices: [String] = []
        for rendition in candidates {
            do {
                return Decoded(image: try decoder.image(for: rendition), rendition: rendition, notices: notices)
            } catch {
                notices.append(reportLines(for: error).joined(separator: "; "))
            }
        }
        return Decoded(image: nil, rendition: nil, notices: notices)
    }

    /// Why there is no icon in the catalog, for messages.
    public var missingReason: String {
        candidates.isEmpty
            ? "its asset catalog has no bitmap for the icon set \(iconNames.map { "'\($0)'" }.joined(separator: " or "))"
            : "none of the icon renditions in its asset catalog could be decoded"
    }

    /// One line describing a rendition for listings: `'AppIcon' icon-1.png 180x180 @3x iphone, ARGB lzfse`.
    public func describe(_ rendition: Rendition) -> String {
        var line =
            "'\(rendition.facetName ?? "?")' \(rendition.name) \(rendition.width)x\(rendition.height) @\(rendition.scale)x "
            + (rendition.idiom?.name ?? "idiom \(rendition.key[.idiom])")
        if rendition.appearance != 0 {
            line += " " + (catalog.appearanceNames[rendition.appearance] ?? "appearance \(rendition.appearance)")
        }
        let format = rendition.pixelFormat.trimmingCharacters(in: .whitespaces)
        return line + ", \(format) \(rendition.encoding)"
    }
}
