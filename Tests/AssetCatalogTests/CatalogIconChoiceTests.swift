import AssetCatalog
import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// Which rendition of an asset catalog becomes the app's icon (IPAKit's `CatalogIcons`), on
/// catalogs written here with icon sets for several idioms, sizes and appearances.
@Suite struct CatalogIconChoiceTests {
    typealias R = TestCatalogWriter.Rendition

    /// Raw premultiplied BGRA of one colour for a square rendition of `size` pixels.
    static func solid(_ size: Int, _ bgra: [UInt8]) -> [UInt8] {
        TestCatalogWriter.celm(0, Array([[UInt8]](repeating: bgra, count: size * size).joined()))
    }

    /// `AppIcon` at 120 (iPhone), 180 (iPhone), 167 (iPad), a 1024 marketing icon stored as deepmap2
    /// and a dark 1024; `OtherIcon` at 512.
    static func catalog() throws -> AssetCatalog {
        var writer = TestCatalogWriter()
        writer.facets = [("AppIcon", 1), ("OtherIcon", 2)]
        writer.appearances = [("UIAppearanceAny", 0), ("UIAppearanceDark", 1)]
        writer.renditions = [
            R(scale: 2, idiom: 1, identifier: 1, name: "icon-120.png", width: 120, height: 120, data: solid(120, [0, 0, 200, 255])),
            R(scale: 3, idiom: 1, identifier: 1, name: "icon-180.png", width: 180, height: 180, data: solid(180, [0, 200, 0, 255])),
            R(scale: 2, idiom: 2, identifier: 1, name: "icon-167.png", width: 167, height: 167, data: solid(167, [200, 0, 0, 255])),
            R(
                scale: 1, idiom: 6, identifier: 1, name: "icon-1024.png", width: 1024, height: 1024,
                data: TestCatalogWriter.celm(11, [1, 2, 3])),
            R(
                scale: 1, idiom: 6, appearance: 1, identifier: 1, name: "dark-1024.png", width: 1024, height: 1024,
                data: solid(1024, [9, 9, 9, 255])),
            R(scale: 1, idiom: 0, identifier: 2, name: "other.png", width: 512, height: 512, data: solid(512, [50, 50, 50, 255]))
        ]
        return try AssetCatalog(bytes: writer.bytes(), file: "Test.app/Assets.car")
    }

    static func info(_ icons: PlistValue, key: String = "CFBundleIcons") -> PlistDictionary {
        PlistDictionary([(key, icons)])
    }

    @Test func theIconSetIsOrderedByAppearanceThenSizeThenIdiom() throws {
        let icons = CatalogIcons(catalog: try Self.catalog(), info: Self.info(["CFBundlePrimaryIcon": ["CFBundleIconName": "AppIcon"]]))
        #expect(icons.iconNames == ["AppIcon"])
        #expect(icons.candidates.map(\.name) == ["icon-1024.png", "icon-180.png", "icon-167.png", "icon-120.png", "dark-1024.png"])
    }

    @Test func anUndecodableRenditionIsPassedOverWithANoticeNamingItsEncoding() throws {
        let icons = CatalogIcons(catalog: try Self.catalog(), info: Self.info(["CFBundlePrimaryIcon": ["CFBundleIconName": "AppIcon"]]))
        let decoded = icons.decodeBest()
        #expect(decoded.rendition?.name == "icon-180.png")
        #expect(decoded.image?.width == 180)
        #expect(Array(decoded.image?.pixels.prefix(4) ?? []) == [0, 200, 0, 255])
        #expect(
            decoded.notices == [
                "Test.app/Assets.car: rendition 'AppIcon' icon-1024.png 1024x1024 @1x ios-marketing: not decodable here (deepmap2)"
            ])
        #expect(icons.describe(decoded.rendition!) == "'AppIcon' icon-180.png 180x180 @3x iphone, ARGB raw")
        #expect(icons.describe(icons.candidates[4]).hasSuffix("ios-marketing UIAppearanceDark, ARGB raw"))
    }

    @Test func theIPadIconNameIsUsedWhenThePrimaryNamesNone() throws {
        let info = Self.info(["CFBundlePrimaryIcon": ["CFBundleIconName": "OtherIcon"]], key: "CFBundleIcons~ipad")
        let icons = CatalogIcons(catalog: try Self.catalog(), info: info)
        #expect(icons.iconNames == ["OtherIcon"])
        #expect(icons.decodeBest().rendition?.name == "other.png")
    }

    @Test func anAppThatNamesNoIconSetGetsAppIcon() throws {
        let icons = CatalogIcons(catalog: try Self.catalog(), info: PlistDictionary())
        #expect(icons.iconNames == ["AppIcon"])
        #expect(icons.decodeBest().rendition?.name == "icon-180.png")
    }

    @Test func anIconSetWithNothingDecodableSaysWhy() throws {
        var writer = TestCatalogWriter()
        writer.facets = [("AppIcon", 1)]
        writer.renditions = [
            R(scale: 2, idiom: 1, identifier: 1, name: "icon.png", width: 120, height: 120, data: TestCatalogWriter.celm(7, [1, 2, 3]))
        ]
        let icons = CatalogIcons(catalog: try AssetCatalog(bytes: writer.bytes(), file: "A.app/Assets.car"), info: PlistDictionary())
        let decoded = icons.decodeBest()
        #expect(decoded.image == nil)
        #expect(decoded.notices == ["A.app/Assets.car: rendition 'AppIcon' icon.png 120x120 @2x iphone: not decodable here (astc)"])
        #expect(icons.missingReason == "none of the icon renditions in its asset catalog could be decoded")
        let empty = CatalogIcons(
            catalog: try AssetCatalog(bytes: writer.bytes(), file: "A.app/Assets.car"),
            info: Self.info(
                ["CFBundlePrimaryIcon": ["CFBundleIconName": "Missing"]]))
        #expect(empty.candidates.isEmpty)
        #expect(empty.missingReason == "its asset catalog has no bitmap for the icon set 'Missing'")
    }
}

/// `icon list` names the alternate icons an app declares, with the renditions of their icon sets
/// and their PNG files, and says when one is not in the bundle.
@Suite struct AlternateIconListingTests {
    @Test func alternateIconsAreListedWithTheirRenditionsAndFiles() throws {
        try withTemporaryFolder { folder in try Self.check(app: folder.path("Test.app")) }
    }

    static func check(app: String) throws {
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        let alternates: PlistValue = [
            "Other": ["CFBundleIconName": "OtherIcon"], "Retro": ["CFBundleIconFiles": ["Retro"]],
            "Gone": ["CFBundleIconFiles": ["Missing"]]
        ]
        let icons: PlistValue = ["CFBundlePrimaryIcon": ["CFBundleIconName": "AppIcon"], "CFBundleAlternateIcons": alternates]
        let info = PlistDictionary([
            ("CFBundleIdentifier", PlistValue.string("com.example.test")), ("CFBundleExecutable", PlistValue.string("Test")),
            ("CFBundleIcons", icons)
        ])
        try PropertyList(.dictionary(info)).data(format: .xml).write(to: URL(fileURLWithPath: app + "/Info.plist"))
        try Data([0xCF, 0xFA, 0xED, 0xFE]).write(to: URL(fileURLWithPath: app + "/Test"))
        var writer = TestCatalogWriter()
        writer.facets = [("AppIcon", 1), ("OtherIcon", 2)]
        writer.renditions = [
            .init(
                scale: 3, idiom: 1, identifier: 1, name: "icon-180.png", width: 180, height: 180,
                data: CatalogIconChoiceTests.solid(180, [0, 200, 0, 255])),
            .init(
                scale: 2, idiom: 1, identifier: 2, name: "other-120.png", width: 120, height: 120,
                data: CatalogIconChoiceTests.solid(120, [9, 9, 9, 255]))
        ]
        try Data(writer.bytes()).write(to: URL(fileURLWithPath: app + "/Assets.car"))
        let retro = RGBAImage(width: 120, height: 120, pixels: [UInt8](repeating: 200, count: 120 * 120 * 4))
        try retro.pngData().write(to: URL(fileURLWithPath: app + "/Retro@2x.png"))

        let listing = try IconListing.list(app)
        #expect(listing.renditions.map(\.text) == ["'AppIcon' icon-180.png 180x180 @3x iphone, ARGB raw"])
        #expect(listing.alternates.map(\.icon.name).sorted() == ["Gone", "Other", "Retro"])
        let byName = Dictionary(uniqueKeysWithValues: listing.alternates.map { ($0.icon.name, $0.entries.map(\.text)) })
        #expect(byName["Other"] == ["'OtherIcon' other-120.png 120x120 @2x iphone, ARGB raw"])
        #expect(byName["Retro"] == ["Retro@2x.png 120x120"])
        #expect(byName["Gone"] == [])
        #expect(listing.alternates.allSatisfy { $0.entries.allSatisfy { !$0.isShown } })
        // The primary icon's files are not taken for the alternate's.
        #expect(!listing.files.map(\.text).contains("Retro@2x.png 120x120"))
    }
}
