import Foundation
import SystemSupport

extension AppIcons {
    /// An icon written by ``extract(_:to:)``: where it went and what it was.
    public struct Extracted: Sendable {
        public var path: String
        public var icon: Icon
    }

    /// Writes every icon of the app in `package` (`.ipa`, `.app` or `.xcarchive`) into `folder` as a
    /// standard PNG (CgBI icons un-crushed), and the largest again as `icon.png`. Returns what it
    /// wrote, the largest last; an app without a readable icon is an error naming the package.
    public static func extract(_ package: String, to folder: String) throws -> [Extracted] {
        let app = try AppPackage.open(package).app
        let icons = AppIcons(bundle: app)
        guard let largest = icons.largest else { throw IPAError("has no icon to extract: \(icons.missingReason)", file: package) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var written: [Extracted] = []
        for icon in icons.icons {
            let image: PNGImage
            do { image = try PNGImage(data: try app.read(icon.path)) } catch let error as PNGImage.Failure {
                throw IPAError("is not a readable PNG: \(error.description)", file: package, entry: app.root + "/" + icon.path)
            }
            let data = image.pngData()
            try FileIO.writeAtomically(data, to: folder + "/" + icon.path)
            written.append(Extracted(path: folder + "/" + icon.path, icon: icon))
            if icon == largest {
                try FileIO.writeAtomically(data, to: folder + "/icon.png")
            }
        }
        written.append(Extracted(path: folder + "/icon.png", icon: largest))
        return written
    }
}
