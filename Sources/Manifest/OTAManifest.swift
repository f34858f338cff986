import Foundation
import PlistKit
import SystemSupport

/// The over-the-air install manifest (`manifest.plist`) that an `itms-services` link points at,
/// built as a plist value and written by PlistKit, never by string templates.
public struct OTAManifest: Sendable {
    public var ipaURL: String
    public var displayImageURL: String?
    public var fullSizeImageURL: String?
    public var bundleIdentifier: String
    public var bundleVersion: String
    public var title: String
    public var subtitle: String?

    public init(
        ipaURL: String, displayImageURL: String?, fullSizeImageURL: String?, bundleIdentifier: String,
        bundleVersion: String, title: String, subtitle: String?
    ) {
        self.ipaURL = ipaURL
        self.displayImageURL = displayImageURL
        self.fullSizeImageURL = fullSizeImageURL
        self.bundleIdentifier = bundleIdentifier
        self.bundleVersion = bundleVersion
        self.title = title
        self.subtitle = subtitle
    }

    public var value: PlistValue {
        func asset(_ kind: String, _ url: String) -> PlistValue {
            var dict = PlistDictionary()
            dict["kind"] = .string(kind)
            dict["url"] = .string(url)
            return .dictionary(dict)
        }
        var assets: [PlistValue] = [asset("software-package", ipaURL)]
        if let displayImageURL { assets.append(asset("display-image", displayImageURL)) }
        if let fullSizeImageURL { assets.append(asset("full-size-image", fullSizeImageURL)) }
        var metadata = PlistDictionary()
        metadata["bundle-identifier"] = .string(bundleIdentifier)
        metadata["bundle-version"] = .string(bundleVersion)
        metadata["kind"] = "software"
        metadata["title"] = .string(title)
        if let subtitle, !subtitle.isEmpty { metadata["subtitle"] = .string(subtitle) }
        var item = PlistDictionary()
        item["assets"] = .array(assets)
        item["metadata"] = .dictionary(metadata)
        return ["items": [.dictionary(item)]]
    }

    /// The manifest as Apple's XML plist.
    /// A value the manifest's XML cannot carry (a control character in a title, say) is named by
    /// what it is, not by its place in the manifest.
    public func data() throws -> Data {
        do { return try PropertyList.encode(value, format: .xml) } catch let error as Diagnostic
            where error.plistProblem == .unrepresentable
        {
            let field = error.keyPath.map { String($0.split(separator: ":").last ?? Substring($0)) } ?? "value"
            let what =
                [
                    "title": "the title", "subtitle": "the subtitle", "bundle-identifier": "the bundle identifier",
                    "bundle-version": "the bundle version", "url": "a URL"
                ][field] ?? "a value"
            let detail = (error.message.components(separatedBy: ";").first ?? error.message)
                .replacingOccurrences(of: "the string ", with: "").replacingOccurrences(of: "which XML", with: "which the manifest's XML")
            throw Diagnostic.manifest("\(what) \(detail)")
        }
    }
}
