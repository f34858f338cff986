import Foundation
import PlistKit
import SystemSupport

/// What an install page and its manifest say about a build, without their links: `page.json`,
/// written beside the page, so that both can be written again with other links (when the release is
/// published to an object store, or its expiring links are minted again by `links`) without the ipa.
public struct PageContent: Codable, Sendable {
    /// The file's name beside the page.
    public static let fileName = "page.json"

    /// What the manifest's metadata says.
    public struct ManifestFacts: Codable, Sendable, Equatable {
        public var bundleIdentifier: String
        public var bundleVersion: String
        public var title: String
        public var subtitle: String?
    }

    /// The layout of this file; a reader refuses a newer one.
    public var format = 1
    /// The page template's values, except those that are links (filled in by ``InstallPage/render(_:links:templates:)``).
    public var page: TemplateValue
    public var manifest: ManifestFacts
    /// The ipa's file name in the release's folder.
    public var ipaName: String
    /// Whether the icons (`icon-57.png`, `icon-512.png`) are beside the page.
    public var hasIcons: Bool

    /// Pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data { try BuildInfo.stableJSON(self) }

    /// Reads a `page.json`; one that is not one, or of a newer format, is an error saying so in one line.
    public init(json data: Data) throws {
        do { self = try JSONDecoder().decode(PageContent.self, from: data) } catch let error as DecodingError {
            throw Diagnostic.manifest(.buildInfo, "is not a page.json: \(BuildInfo.describe(error))")
        }
        guard format == 1 else {
            throw Diagnostic.manifest(.buildInfo, "is a page.json of format \(format), newer than this adhocbuild reads; update adhocbuild")
        }
    }

    init(page: TemplateValue, manifest: ManifestFacts, ipaName: String, hasIcons: Bool) {
        self.page = page
        self.manifest = manifest
        self.ipaName = ipaName
        self.hasIcons = hasIcons
    }
}

extension TemplateValue: Codable {
    /// Text as a JSON string, a flag as a boolean, a list as an array, a record as an object.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else if let list = try? container.decode([TemplateValue].self) {
            self = .list(list)
        } else {
            self = .record(try container.decode([String: TemplateValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .flag(let flag): try container.encode(flag)
        case .list(let list): try container.encode(list)
        case .record(let record): try container.encode(record)
        }
    }
}
