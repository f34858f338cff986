import AssetCatalog
import Foundation
import SystemSupport

extension AppIcons {
    /// An icon written by ``extract(_:to:)``: where it went and what it was.
    public struct Extracted: Sendable {
        public var path: String
        public var icon: Icon
    }

    /// Writes every icon of the app in `package` (`.ipa`, `.app` or `.xcarchive`) into `folder` as a
    /// standard PNG (CgBI icons un-crushed), and the largest again as `icon.png`. An app whose
    /// icons are only in its asset catalog gets every decodable rendition of its icon set, named
    /// `<set>-<width>x<height>@<scale>x~<idiom>.png`, and the one iOS shows as `icon.png`. Returns
    /// what it wrote, `icon.png` last; an app without a readable icon is an error naming the package.
    /// The files are written together: one that cannot be written leaves `folder` as it was. The
    /// package is read with `limits`.
    public static func extract(_ package: String, to folder: String, limits: ReaderLimits = .standard) throws -> [Extracted] {
        try OutputPlacement.checkOutside(folder, input: package)
        let app = try AppPackage.open(package, limits: limits).app
        let icons = AppIcons(bundle: app)
        guard let largest = icons.largest else { return try extractFromCatalog(of: app, package, to: folder, files: icons) }
        try FileIO.createFolder(folder)
        var written: [Extracted] = []
        var files: [(path: String, data: Data)] = []
        for icon in icons.icons {
            let image: RGBAImage
            do { image = try RGBAImage(pngData: try app.read(icon.path)) } catch let error as Diagnostic where error.code == .ipa(.image) {
                let (file, entry) = app.storage.place(of: app.root + "/" + icon.path)
                throw Diagnostic.ipa("is not a readable PNG: \(error.description)", file: file, entry: entry)
            }
            let data = image.pngData()
            // The file's name is the build's: reduced to one safe name, so it lands in `folder`.
            let output = try SafeFileName.path(SafeFileName.from(icon.path, fallback: "icon-file.png"), inside: folder)
            files.append((output, data))
            written.append(Extracted(path: output, icon: icon))
            if icon == largest { files.append((folder + "/icon.png", data)) }
        }
        // All or nothing: a file that cannot be written (a folder named icon.png) fails before any is.
        try FileIO.writeAtomically(together: files)
        written.append(Extracted(path: folder + "/icon.png", icon: largest))
        return written
    }

    static func extractFromCatalog(of app: AppBundle, _ package: String, to folder: String, files: AppIcons) throws -> [Extracted] {
        let lookup = AppIconLookup(bundle: app, files: files)
        guard let best = lookup.icon, let catalog = lookup.catalog else {
            throw Diagnostic.ipa(
                "has no icon to extract: \(lookup.missingReason)\(lookup.notices.map { "; \($0)" }.joined())", file: package)
        }
        try FileIO.createFolder(folder)
        let decoder = RenditionDecoder.withBuiltInDecompressors(catalog.catalog)
        var written: [Extracted] = []
        var files: [(path: String, data: Data)] = []
        var names = Set<String>()
        for rendition in catalog.candidates {
            // The icon set's name is the build's (`../../esc` is a name too): one safe name, so it lands in `folder`.
            let name =
                "\(SafeFileName.from(rendition.facetName ?? "icon", fallback: "icon"))-\(rendition.width)x\(rendition.height)@\(rendition.scale)x~\(rendition.idiom?.name ?? "idiom\(rendition.key[.idiom])")"
                + (rendition.appearance != 0 ? "-appearance\(rendition.appearance)" : "") + ".png"
            guard names.insert(name).inserted else { continue }
            // The one the lookup decoded is not decoded again.
            let image: RGBAImage
            if rendition == best.rendition {
                image = best.image
            } else if let decoded = try? decoder.image(for: rendition) {
                image = decoded
            } else {
                continue
            }
            let output = try SafeFileName.path(name, inside: folder)
            files.append((output, image.pngData()))
            written.append(
                Extracted(path: output, icon: Icon(path: name, width: image.width, height: image.height, isCgBI: false)))
        }
        files.append((folder + "/icon.png", best.image.pngData()))
        try FileIO.writeAtomically(together: files)
        written.append(
            Extracted(
                path: folder + "/icon.png", icon: Icon(path: best.source, width: best.image.width, height: best.image.height, isCgBI: false)
            ))
        return written
    }
}
