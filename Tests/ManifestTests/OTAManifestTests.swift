import AssetCatalog
import Foundation
import IPAKit
import Manifest
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// `adhocbuild manifest`: what it writes must install, or it says why not.
@Suite struct OTAManifestTests {
    /// An ipa of an app with `info` as its Info.plist (and an icon, which only `page` writes out).
    static func ipa(_ folder: TemporaryFolder, _ info: PlistValue, name: String = "A") throws -> String {
        try folder.create("\(name).app/Info.plist", try PropertyList.encode(info, format: .binary))
        var pixels = [UInt8]()
        for _ in 0..<(60 * 60) { pixels += [10, 20, 200, 255] }
        try folder.create("\(name).app/AppIcon60x60@2x.png", RGBAImage(width: 60, height: 60, pixels: pixels).pngData())
        chmod(try folder.create("\(name).app/A", Data(repeating: 1, count: 100)), 0o755)
        let ipa = folder.path("\(name).ipa")
        _ = try IPAPackager().package(folder.path("\(name).app"), to: ipa)
        return ipa
    }

    static var complete: PlistDictionary { completeValue.dictionaryValue! }
    static let completeValue: PlistValue = [
        "CFBundleIdentifier": "com.example.a", "CFBundleExecutable": "A", "CFBundleVersion": "42",
        "CFBundleShortVersionString": "1.4.0", "CFBundleDisplayName": "",
        "CFBundleIcons": ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60"]]]
    ]

    func manifest(_ request: OTAManifest.Request, _ folder: TemporaryFolder) throws -> PlistValue {
        _ = try OTAManifest.write(request, to: folder.path("manifest.plist"))
        return try PropertyList(contentsOf: folder.path("manifest.plist")).value
    }

    /// A missing or empty bundle identifier, or a version that is not a string, is an error naming
    /// the ipa; it wrote `bundle-identifier` and `bundle-version` as empty strings, with exit 0.
    @Test func aManifestNeedsTheBundleIdentifierAndAVersionString() throws {
        try withTemporaryFolder { folder in
            var noIdentifier = Self.complete
            noIdentifier["CFBundleIdentifier"] = nil
            var numberVersion = Self.complete
            numberVersion["CFBundleShortVersionString"] = 2
            for (info, message) in [
                (noIdentifier, "the app's Info.plist has no CFBundleIdentifier, which the manifest must carry"),
                (numberVersion, "the app's Info.plist has CFBundleShortVersionString as an integer, not a string")
            ] {
                let ipa = try Self.ipa(folder, .dictionary(info))
                #expect(throws: Diagnostic.manifest(message, file: ipa)) {
                    try OTAManifest.write(OTAManifest.Request(ipa: ipa, baseURL: "https://b.example/"), to: folder.path("m.plist"))
                }
                #expect(!FileManager.default.fileExists(atPath: folder.path("m.plist")))
            }
        }
    }

    /// An app folder is refused as `page` refuses it: the manifest pointed at `…/A.app`, which no
    /// device can download, with exit 0.
    @Test func anAppFolderIsRefusedAndNoManifestIsWritten() throws {
        try withTemporaryFolder { folder in
            _ = try Self.ipa(folder, .dictionary(Self.complete))
            let app = folder.path("A.app")
            #expect(throws: Diagnostic.manifest("is a folder, not an .ipa; package it first (adhocbuild package)", file: app)) {
                try OTAManifest.write(OTAManifest.Request(ipa: app, baseURL: "https://b.example/"), to: folder.path("m.plist"))
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path("m.plist")))
        }
    }

    /// The manifest alone names no icons (it pointed at icon-57.png and icon-512.png, which only
    /// `page` writes); an empty display name falls back to the bundle's name.
    @Test func aManifestAloneNamesNoIconsAndAnEmptyDisplayNameIsNoTitle() throws {
        try withTemporaryFolder { folder in
            var info = Self.complete
            info["CFBundleName"] = "Shout"
            let ipa = try Self.ipa(folder, .dictionary(info))
            let value = try manifest(OTAManifest.Request(ipa: ipa, baseURL: "https://b.example/x/"), folder)
            let assets = value["items:0:assets"]?.arrayValue ?? []
            #expect(assets.map { $0["kind"]?.stringValue } == ["software-package"])
            #expect(assets.first?["url"] == "https://b.example/x/A.ipa")
            #expect(value["items:0:metadata:title"] == "Shout")
        }
    }

    /// A subtitle XML cannot carry is named as the subtitle, with no advice to write binary.
    @Test func aSubtitleTheManifestCannotHoldIsNamedAsSuch() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.ipa(folder, .dictionary(Self.complete))
            var request = OTAManifest.Request(ipa: ipa, baseURL: "https://b.example/")
            request.subtitle = "a\u{7}b"
            #expect(throws: Diagnostic.manifest("the subtitle holds U+0007, which the manifest's XML cannot carry")) {
                try manifest(request, folder)
            }
        }
    }

    /// `--ipa-url` is checked as the base URL is, except that a query (a signed link) is kept.
    @Test func theIpaURLIsCheckedAndAQueryIsKept() throws {
        try withTemporaryFolder { folder in
            let ipa = try Self.ipa(folder, .dictionary(Self.complete))
            var request = OTAManifest.Request(ipa: ipa, baseURL: "https://b.example/")
            request.ipaURL = "https://cdn.example.com/builds/ä.ipa?sig=1&x=2"
            let value = try manifest(request, folder)
            #expect(value["items:0:assets:0:url"] == "https://cdn.example.com/builds/%C3%A4.ipa?sig=1&x=2")
            for (bad, problem) in [
                ("https://cdn.example.com/a b.ipa", "contains a space; write it as %20"),
                ("A.ipa", "is not an absolute URL (like https://builds.example.com/app/)"),
                (
                    "http://cdn.example.com/A.ipa",
                    "uses http; iOS 7.1 and later refuse to install from a manifest served over http (use https, or --allow-http for a test setup)"
                ),
                ("https://cdn.example.com/A.ipa#top", "has a fragment ('#…'), which is not sent to the server; leave it out")
            ] {
                request.ipaURL = bad
                #expect(throws: Diagnostic.manifest(.baseURL, "ipa URL '\(bad)' \(problem)")) { try manifest(request, folder) }
            }
        }
    }
}
