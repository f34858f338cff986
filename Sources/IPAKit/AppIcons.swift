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
        let topLevel = bundle.relativePaths.filter { !$0.contains("/") && $0.lowercased().hasSuffix(".png") }
        var candidates = Set<String>()
        for name in declaredNames {
            let stem = name.lowercased().hasSuffix(".png") ? String(name.dropLast(4)) : name
            for file in topLevel where file.hasPrefix(stem) {
                let rest = file.dropFirst(stem.count).dropLast(4)
                // AppIcon60x60 matches AppIcon60x60@2x.png and AppIcon60x60@3x~ipad.png, not AppIcon60x60Dark.png.
                if rest.isEmpty || rest.hasPrefix("@") || rest.hasPrefix("~") { candidates.insert(file) }
            }
        }
        for file in topLevel where file.hasPrefix("Icon") { candidates.insert(file) }
        icons = candidates.sorted().compactMap { path in
            guard let data = try? bundle.read(path), let size = PNGImage.dimensions(of: data) else { return nil }
            return Icon(path: path, width: size.width, height: size.height, isCgBI: PNGImage.isCgBI(data))
        }.sorted { ($0.width * $0.height, $1.path) > ($1.width * $1.height, $0.path) }
        hasAssetCatalog = bundle.file("Assets.car") != nil
    }
}
