import Foundation

/// The bundles an app embeds that are code with an Info.plist of their own: extensions
/// (`PlugIns/*.appex`, `Extensions/*.appex`), Watch apps (`Watch/*.app`) and their extensions, and
/// App Clips (`AppClips/*.app`). Version bumps and bundle id changes walk the same places.
enum NestedBundles {
    /// Each folder that embeds bundles, and the extension of the bundles it holds.
    static let places = [("PlugIns", ".appex"), ("Watch", ".app"), ("AppClips", ".app"), ("Extensions", ".appex")]

    /// Every bundle nested in the bundle folder `bundle`, at any depth, each followed by the bundles it
    /// embeds; by name within a folder. A folder without an Info.plist is not a bundle and is skipped.
    static func folders(in bundle: String) -> [String] {
        var result: [String] = []
        for (folder, suffix) in places {
            let path = (bundle as NSString).appendingPathComponent(folder)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(suffix) }.sorted()
            for name in names {
                let nested = (path as NSString).appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: (nested as NSString).appendingPathComponent("Info.plist")) else { continue }
                result.append(nested)
                result += folders(in: nested)
            }
        }
        return result
    }
}
