import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

@Suite(Fixtures.enabled) struct AppVerifierTests {
    func date(_ text: String) -> Date { PlistDate(iso8601: text)!.date }

    func findings(_ ipa: String, at: String, udids: [String] = []) throws -> [String] {
        let package = try AppPackage.open(Fixtures.url("ipa", ipa).path)
        return AppVerifier(udids: udids, now: date(at)).verify(package).map { "\($0.severity.rawValue): \($0)" }
    }

    @Test func anEnterpriseBuildWithAnExtensionPassesWhileItsProfileIsValid() throws {
        #expect(try findings("app_info_embedded_enterprise-appex.ipa", at: "2021-06-01") == [])
    }

    @Test func profilesNearExpiryAreWarnedAboutAndExpiredOnesAreErrors() throws {
        #expect(
            try findings("app_info_embedded_enterprise-appex.ipa", at: "2022-01-10") == [
                "warning: Payload/Demo.app: profile 'iOS Team Inhouse Provisioning Profile: com.icyleaf.test.Demo' expires on 2022-01-15T06:40:53Z, in 5 days",
                "warning: Payload/Demo.app/PlugIns/Notification.appex: profile 'iOS Team Inhouse Provisioning Profile: com.icyleaf.test.Demo.Notification' expires on 2022-01-15T06:42:34Z, in 5 days"
            ])
        #expect(
            try findings("ipa_analyzer_ios-simple-objc_dev.ipa", at: "2026-12-02") == [
                "error: Payload/ios-simple-objc.app: profile 'BitriseBot-Wildcard' expired on 2018-02-17T09:33:57Z"
            ])
    }

    /// Every entry's data is read against its CRC: one flipped byte in a nib (which only the
    /// signature check would notice, and not at all in an unsigned app) is an error naming it.
    @Test func aDamagedEntryIsAnErrorNamingIt() throws {
        try withTemporaryFolder { folder in
            var bytes = [UInt8](try Data(contentsOf: Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa")))
            let name = "Payload/Demo.app/Base.lproj/Main.storyboardc/BYZ-38-t0r-view-8bC-Xf-vdC.nib"
            let header = try #require(
                (0..<(bytes.count - 30)).first {
                    bytes[$0..<($0 + 4)] == [0x50, 0x4B, 0x03, 0x04] && bytes[($0 + 30)...].starts(with: Array(name.utf8))
                })
            func field(_ at: Int) -> Int { Int(bytes[header + at]) | Int(bytes[header + at + 1]) << 8 }
            let dataStart = header + 30 + field(26) + field(28)
            let compressed = field(18) | field(20) << 16
            bytes[dataStart + compressed / 2] ^= 0x55
            let damaged = folder.path("damaged.ipa")
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let findings = AppVerifier(now: date("2021-06-01")).verify(try AppPackage.open(damaged)).map(\.description)
            #expect(findings.count == 1 && findings[0].hasPrefix("\(name): is damaged: "), "\(findings)")
        }
    }

    @Test func anAppStoreProfileCannotInstallOverTheAir() throws {
        #expect(
            try findings("app_info_ipad_appstore-cgbi-icons.ipa", at: "2017-01-01") == [
                "error: Payload/bundle.app: profile 'XC: *' is an App Store profile; an app signed with it cannot be installed over the air (use an ad-hoc, development or enterprise profile)"
            ])
    }

    @Test func devicesMustBeInTheProfile() throws {
        let package = try AppPackage.open(Fixtures.url("ipa", "ipa-server_Test_dev-xcode12.ipa").path)
        guard case .success(let profile)? = package.app.profile() else { Issue.record("no profile"); return }
        let known = try #require(profile.devices.first)
        #expect(try findings("ipa-server_Test_dev-xcode12.ipa", at: "2022-01-01", udids: [known.lowercased()]) == [])
        #expect(
            try findings("ipa-server_Test_dev-xcode12.ipa", at: "2022-01-01", udids: ["00008101-000A1B2C3D4E5F60"]) == [
                "error: Payload/Test.app: device 00008101-000A1B2C3D4E5F60 is not in profile 'iOS Team Provisioning Profile: com.ineva.test-rtmp.Test' (35 devices)"
            ])
    }

    @Test func aSimulatorBuildWithoutAProfileAndAMismatchedExtensionAreCaught() throws {
        try withTemporaryFolder { folder in
            try folder.create("Sim.app/Info.plist", try Data(contentsOf: Fixtures.url("plist-binary", "fastlane_simulator-app_Info.plist")))
            let info = try PropertyList(contentsOf: folder.path("Sim.app/Info.plist")).value
            let executable = try #require(info["CFBundleExecutable"]?.stringValue)
            try folder.create("Sim.app/\(executable)", Data("not executable".utf8))
            try folder.create(
                "Sim.app/PlugIns/Widget.appex/Info.plist",
                try PropertyList.encode(
                    [
                        "CFBundleIdentifier": "com.other.widget", "CFBundleExecutable": "Widget", "CFBundleVersion": "99",
                        "CFBundleShortVersionString": "9.9"
                    ], format: .xml))
            let package = try AppPackage.open(folder.path("Sim.app"))
            let lines = AppVerifier(now: date("2026-12-02")).verify(package).map { "\($0.severity.rawValue): \($0)" }
            let id = try #require(info["CFBundleIdentifier"]?.stringValue)
            #expect(
                lines == [
                    "error: Sim.app: the executable '\(executable)' has no execute permission",
                    "error: Sim.app: is a simulator build (iphonesimulator); it cannot be installed on a device",
                    "error: Sim.app: has no embedded.mobileprovision; a device will not install it",
                    "error: Sim.app/PlugIns/Widget.appex: the executable 'Widget' is missing",
                    "error: Sim.app/PlugIns/Widget.appex: has no embedded.mobileprovision; a device will not install it",
                    "error: Sim.app/PlugIns/Widget.appex: bundle identifier 'com.other.widget' is not under the app's '\(id)'",
                    "error: Sim.app/PlugIns/Widget.appex: CFBundleShortVersionString 9.9 differs from the app's \(info["CFBundleShortVersionString"]?.stringValue ?? "")",
                    "error: Sim.app/PlugIns/Widget.appex: CFBundleVersion 99 differs from the app's \(info["CFBundleVersion"]?.stringValue ?? "")"
                ])
        }
    }
}
