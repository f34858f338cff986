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
