import Foundation
import PlistKit
import TestSupport
import Testing

/// Every real file made by Apple's tools parses, and survives conversion to every format.
@Suite(Fixtures.enabled) struct FixtureRoundTripTests {
    static let plistFolders = ["plist-binary", "plist-xml", "pbxproj"]

    @Test(arguments: plistFolders)
    func everyRealFileParsesAndRoundTripsThroughXMLAndBinary(folder: String) throws {
        let files = Fixtures.files(in: folder)
        #expect(!files.isEmpty || !Fixtures.isAvailable)
        for file in files {
            let original = try PropertyList(contentsOf: file.path)
            for format in [PlistFormat.xml, .binary] {
                let encoded = try PropertyList.encode(original.value, format: format)
                let decoded = try PropertyList(data: encoded)
                #expect(decoded.format == format)
                #expect(decoded.value == original.value, "\(file.lastPathComponent) via \(format)")
            }
        }
    }

    @Test func formatsAreDetectedFromContent() throws {
        let expectations: [(String, PlistFormat)] = [("plist-binary", .binary), ("plist-xml", .xml), ("pbxproj", .openStep)]
        for (folder, format) in expectations {
            for file in Fixtures.files(in: folder) {
                #expect(try PropertyList(contentsOf: file.path).format == format, "\(file.lastPathComponent)")
            }
        }
    }

    @Test func xcodeWrittenXMLIsReproducedByteForByte() throws {
        // The 2-space Demo.app Info.plist was edited by hand; the other two are as Xcode wrote them.
        for name in ["fastlane_very-capable-app.xcarchive_Info.plist", "ipa-server_Test.app_CodeResources.plist"] {
            let original = try Data(contentsOf: Fixtures.url("plist-xml", name))
            let value = try XMLPlistReader().read(original)
            #expect(try XMLPlistWriter().write(value) == original, "\(name)")
        }
    }

    @Test func binaryInfoPlistsReadTheValuesXcodeWrote() throws {
        let info = try PropertyList(contentsOf: Fixtures.url("plist-binary", "app_info_iphone_AppInfoDemo_Info.plist").path).value
        #expect(info["CFBundleIdentifier"] == "com.icyleaf.AppInfoDemo")
        #expect(info["CFBundleShortVersionString"] == "1.2.3")
        #expect(info["CFBundleVersion"] == "5")
        let test = try PropertyList(contentsOf: Fixtures.url("plist-binary", "ipa-server_Test.app_Info.plist").path).value
        #expect(test["CFBundleIcons:CFBundlePrimaryIcon:CFBundleIconFiles:0"] == "AppIcon60x60")
        let simulator = try PropertyList(contentsOf: Fixtures.url("plist-binary", "fastlane_simulator-app_Info.plist").path).value
        #expect(simulator["DTPlatformName"] == "iphonesimulator")
    }

    @Test func xcarchiveInfoHasItsCreationDate() throws {
        let archive = try PropertyList(contentsOf: Fixtures.url("plist-xml", "fastlane_very-capable-app.xcarchive_Info.plist").path)
        guard case .date(let date)? = archive.value["CreationDate"] else {
            Issue.record("CreationDate is not a date")
            return
        }
        #expect(date.iso8601.hasPrefix("20"))
        #expect(archive.value["ApplicationProperties:CFBundleIdentifier"] == "org.fastlane.very-capable-app")
    }

    @Test func pbxprojFilesExposeTheirObjectsAndBuildSettings() throws {
        for file in Fixtures.files(in: "pbxproj") {
            let project = try PropertyList(contentsOf: file.path).value
            #expect(project["archiveVersion"] == "1")
            let objects = try #require(project["objects"]?.dictionaryValue)
            #expect(objects.count > 20)
            let settings = objects.values.compactMap { $0["buildSettings:PRODUCT_BUNDLE_IDENTIFIER"]?.stringValue }
            #expect(!settings.isEmpty, "\(file.lastPathComponent) has bundle identifiers in its build settings")
        }
    }
}
