import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// Every real ipa in the fixtures inspects with the values its SOURCES.md lists.
@Suite(Fixtures.enabled) struct FixtureIPATests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var file: String
        var app: String
        var identifier: String
        var version: String
        var build: String
        var minimumOS: String?
        var families: [Int]
        var profileKind: ProvisioningProfile.Kind
        var team: String
        var devices: Int
        var expires: String
        var extensions: [String] = []
        var iconCount: Int = 0
        var testDescription: String { file }
    }

    static let expectations: [Expected] = [
        Expected(
            file: "app_info_embedded_enterprise-appex.ipa", app: "Demo.app", identifier: "com.icyleaf.test.Demo", version: "1.0",
            build: "1", minimumOS: "14.3", families: [1, 2], profileKind: .enterprise, team: "72LA85G59H", devices: 0,
            expires: "2022-01-15", extensions: ["com.icyleaf.test.Demo.Notification"]),
        Expected(
            file: "app_info_ipad_appstore-cgbi-icons.ipa", app: "bundle.app", identifier: "com.icyleaf.bundle", version: "1.0",
            build: "1", minimumOS: nil, families: [2], profileKind: .appStore, team: "5PJA6N5A3B", devices: 0,
            expires: "2017-04-12", iconCount: 7),
        Expected(
            file: "app_info_iphone_dev-100devices.ipa", app: "AppInfoDemo.app", identifier: "com.icyleaf.AppInfoDemo",
            version: "1.2.3", build: "5", minimumOS: nil, families: [1], profileKind: .development, team: "5PJA6N5A3B",
            devices: 100, expires: "2017-07-27"),
        Expected(
            file: "fastlane_very-capable-app_dev-xcode9.ipa", app: "very-capable-app.app", identifier: "org.fastlane.very-capable-app",
            version: "1.0", build: "1", minimumOS: "11.2", families: [1, 2], profileKind: .development, team: "TestFixture",
            devices: 1, expires: "2019-04-07"),
        Expected(
            file: "ipa-server_Test_dev-xcode12.ipa", app: "Test.app", identifier: "com.ineva.test-rtmp.Test", version: "1.0",
            build: "1", minimumOS: "13.1", families: [1, 2], profileKind: .development, team: "GC6FQHF5NF", devices: 35,
            expires: "2022-05-09"),
        Expected(
            file: "ipa_analyzer_ios-simple-objc_dev.ipa", app: "ios-simple-objc.app", identifier: "Bitrise.ios-simple-objc",
            version: "1.0", build: "1", minimumOS: "8.1", families: [1, 2], profileKind: .development, team: "72SA8V3WYL",
            devices: 1, expires: "2018-02-17")
    ]

    @Test(arguments: expectations)
    func inspectsWithTheListedValues(_ expected: Expected) throws {
        let package = try AppPackage.open(Fixtures.url("ipa", expected.file).path)
        #expect(package.app.name == expected.app)
        let app = package.app
        #expect(app.bundleIdentifier == expected.identifier)
        #expect(app.shortVersion == expected.version)
        #expect(app.buildVersion == expected.build)
        if let minimumOS = expected.minimumOS { #expect(app.minimumOSVersion == minimumOS) }
        #expect(app.deviceFamilies == expected.families)
        #expect(!app.isSimulatorBuild)
        #expect(app.executable?.isExecutable == true)
        guard case .success(let profile)? = app.profile() else {
            Issue.record("no readable profile")
            return
        }
        #expect(profile.kind == expected.profileKind)
        #expect(profile.teamIdentifier == expected.team)
        #expect(profile.devices.count == expected.devices)
        #expect(profile.expirationDate.map { PlistDate($0).iso8601.hasPrefix(expected.expires) } == true)
        #expect(profile.matches(bundleIdentifier: expected.identifier))
        #expect(app.nested.compactMap(\.bundleIdentifier) == expected.extensions)
        #expect(AppIcons(bundle: app).icons.count == expected.iconCount)
    }

    @Test func anAppWhoseIconsAreOnlyInAnAssetCatalogGetsItsIconFromThere() throws {
        let package = try AppPackage.open(Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path)
        let icons = AppIcons(bundle: package.app)
        #expect(icons.icons.isEmpty)
        #expect(icons.declaredNames == ["AppIcon60x60"])
        #expect(icons.missingReason == "it has no icon PNG; its icons live only in its asset catalog (Assets.car)")
        let lookup = AppIconLookup(bundle: package.app)
        #expect(lookup.icon?.source == "Assets.car 'AppIcon' icon-1.png 180x180 @3x iphone, ARGB lzfse")
        #expect(lookup.icon?.image.width == 180 && lookup.icon?.image.height == 180)
        #expect(lookup.notices.isEmpty)
        let summary = AppInspection.summary(package)
        #expect(summary["icons"] == ["Assets.car 'AppIcon' icon-1.png 180x180 @3x iphone, ARGB lzfse"])
    }

    @Test func aDamagedAssetCatalogIsANoticeAndNoIcon() throws {
        try withTemporaryFolder { folder in
            let app = folder.path("Broken.app")
            try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
            _ = try folder.write(
                "Broken.app/Info.plist",
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.broken</string>
                <key>CFBundleExecutable</key><string>Broken</string></dict></plist>
                """)
            _ = try folder.write("Broken.app/Assets.car", "BOMStore but not really")
            let lookup = AppIconLookup(bundle: try AppPackage.open(app).app)
            #expect(lookup.icon == nil)
            #expect(lookup.missingReason == "its asset catalog (Assets.car) cannot be read")
            #expect(lookup.notices.count == 1 && lookup.notices[0].hasPrefix("\(app)/Assets.car: "), "\(lookup.notices)")
        }
    }

    @Test func theInspectionSummaryNamesTheExtensionAndTheProfile() throws {
        let package = try AppPackage.open(Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path)
        let summary = AppInspection.summary(package)
        #expect(summary["frameworks"] == ["CarPlay.framework"])
        #expect(summary[keyPath: ["profile", "type"]] == "enterprise")
        #expect(summary[keyPath: ["profile", "profileSignature"]] == nil)  // checked by AdhocBuildKit's AppReport
        #expect(summary[keyPath: ["extensions", "0", "extensionPoint"]] == "com.apple.usernotifications.service")
    }
}
