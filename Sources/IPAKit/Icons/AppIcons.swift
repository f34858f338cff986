import AssetCatalog
import Foundation
import PlistKit

/// Finds an app's icon files — `CFBundleIcons`, `CFBundleIcons~ipad`, `CFBundleIconFiles`,
/// `CFBundleIconFile` and legacy `Icon*.png` — and picks the largest. Icons kept only in the
/// asset catalog are ``CatalogIcons``; ``AppIconLookup`` looks in both.
public struct AppIcons: Sendable {
    /// One icon file and its size in pixels.
    public struct Icon: Sendable, Equatable {
        public var path: String
        public var width: Int
        public var height: Int
        public var isCgBI: Bool
    }

    /// Every icon file found, largest first.
    public var icons: [Icon]
    /// The icon names the Info.plist declares.
    public var declaredNames: [String]
    /// True when the bundle has an asset catalog (`Assets.car`), where newer apps keep their icons.
    public var hasAssetCatalog: Bool

    public var largest: Icon? { icons.first }

    /// Why no icon can be extracted, for an app that has none as a file. It suggests no option: each
    /// command that takes one (`page --icon`, `release --icon`) says so itself.
    public var missingReason: String {
        if hasAssetCatalog { return "it has no icon PNG; its icons live only in its asset catalog (Assets.car)" }
        return declaredNames.isEmpty
            ? "it declares no icons" : "none of its declared icons (\(declaredNames.joined(separator: ", "))) is in the bundle"
    }

    public init(bundle: AppBundle) {
        var names: [String] = []
        for key in ["CFBundleIcons", "CFBundleIcons~ipad"] {
            let files = bundle.info[keyPath: [key, "CFBundlePrimaryIcon", "CFBundleIconFiles"]]?.arrayValue ?? []
            names += files.compactMap(\.stringValue)
            if let single = bundle.info[keyPath: [key, "CFBundlePrimaryIcon", "CFBundleIconName"]]?.stringValue,
                files.isEmpty
            {
                names.append(single)
            }
        }
        names += bundle.info["CFBundleIconFiles"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let single = bundle.info["CFBundleIconFile"]?.stringValue { names.append(single) }
        var seen = Set<String>()
        declaredNames = names.filter { seen.insert($0).inserted }
        icons = AppIcons.files(named: declaredNames, in: bundle, orNamedIcon: true)
        hasAssetCatalog = bundle.file("Assets.car") != nil
    }

    /// The readable PNG files at the top of `bundle` that `names` declare (`AppIcon60x60` matches
    /// `AppIcon60x60@2x.png` and `AppIcon60x60@3x~ipad.png`, not `AppIcon60x60Dark.png`), and with
    /// `orNamedIcon` every `Icon*.png` too; largest first.
    static func files(named names: [String], in bundle: AppBundle, orNamedIcon: Bool) -> [Icon] {
        let topLevel = bundle.relativePaths.filter { !$0.utf8.contains(UInt8(ascii: "/")) && $0.lowercased().hasSuffix(".png") }
        var candidates = Set<String>()
        for name in names {
            let stem = name.lowercased().hasSuffix(".png") ? String(name.dropLast(4)) : name
            for file in topLevel where file.hasPrefix(stem) {
                let rest = file.dropFirst(stem.count).dropLast(4)
                if rest.isEmpty || rest.hasPrefix("@") || rest.hasPrefix("~") { candidates.insert(file) }
            }
        }
        if orNamedIcon { for file in topLevel where file.hasPrefix("Icon") { candidates.insert(file) } }
        return candidates.sorted().compactMap { path in
            guard let data = try? bundle.read(path), let size = RGBAImage.pngDimensions(of: data) else { return nil }
            return Icon(path: path, width: size.width, height: size.height, isCgBI: RGBAImage.isCgBI(data))
        }.sorted { ($0.width * $0.height, $1.path) > ($1.width * $1.height, $0.path) }
    }
}

/// An alternate icon the app declares (`CFBundleIcons:CFBundleAlternateIcons`), which the app can
/// switch to at run time: by an icon set of its asset catalog, or by PNG files.
public struct AlternateIcon: Sendable, Equatable {
    /// The name the app switches to it by.
    public var name: String
    /// `CFBundleIconName`: the icon set in `Assets.car`.
    public var iconSetName: String?
    /// `CFBundleIconFiles`: the PNG files' base names.
    public var fileNames: [String]

    /// The alternate icons of `CFBundleIcons`, then those only `CFBundleIcons~ipad` declares, each
    /// name in the order of its dictionary.
    public static func declared(in info: PlistDictionary) -> [AlternateIcon] {
        var found: [AlternateIcon] = []
        for key in ["CFBundleIcons", "CFBundleIcons~ipad"] {
            guard let alternates = info[keyPath: [key, "CFBundleAlternateIcons"]]?.dictionaryValue else { continue }
            for (name, value) in alternates {
                let fields = value.dictionaryValue
                let icon = AlternateIcon(
                    name: name, iconSetName: fields?["CFBundleIconName"]?.stringValue,
                    fileNames: fields?["CFBundleIconFiles"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                if !found.contains(icon) { found.append(icon) }
            }
        }
        return found
    }
}
