import AdhocBuildKit
import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// Which listed devices a build reaches, read from the profiles real builds embed: a device missing
/// from a bundle's profile is named with the bundle; an enterprise profile covers everyone, an App
/// Store profile no one.
@Suite(Fixtures.enabled) struct DeviceCoverageTests {
    static let added = Date(timeIntervalSince1970: 1_780_000_000)
    /// A UDID no fixture profile lists.
    static let outsider = "00008030-0000DEADBEEF0001"

    static func device(_ udid: String, _ name: String) throws -> DeviceRecord {
        try DeviceRecord(udid: udid, name: name, added: added, addedBy: "ana", source: .manual)
    }

    static func app(_ ipa: String) throws -> AppBundle { try AppPackage.open(Fixtures.url("ipa", ipa).path).app }

    static func profile(_ name: String) throws -> ProvisioningProfile {
        try ProvisioningProfile(contentsOf: Fixtures.url("mobileprovision", name).path)
    }

    @Test func aDeviceMissingFromTheProfileIsNamedWithTheBundleAsAWarningOrAnError() throws {
        let profiled = try Self.profile("ipa-server_xcode-managed_dev_35devices.mobileprovision").devices
        let devices = [
            try Self.device(profiled[0], "Ana's iPhone"), try Self.device(Self.outsider, "Bo's iPhone"),
            try Self.device(profiled[1].uppercased(), "Cy's iPhone")
        ]
        let coverage = DeviceCoverage(app: try Self.app("ipa-server_Test_dev-xcode12.ipa"), devices: devices)
        #expect(coverage.listed == 3)
        #expect(coverage.reached == 2)
        #expect(coverage.gaps.map(\.device.udid) == [Self.outsider])
        #expect(coverage.gaps.first?.bundle == "Payload/Test.app")
        let warnings = coverage.findings(required: false, store: "devices.plist")
        #expect(warnings.map(\.severity) == [.warning])
        #expect(
            warnings.first?.description
                == "device 'Bo's iPhone' (\(Self.outsider)) of devices.plist is not in profile "
                + "'iOS Team Provisioning Profile: com.ineva.test-rtmp.Test' of Payload/Test.app; it cannot install this build")
        #expect(coverage.findings(required: true, store: "devices.plist").map(\.severity) == [.error])
    }

    @Test func anEnterpriseProfileCoversEveryListedDevice() throws {
        let devices = [try Self.device(Self.outsider, "Bo"), try Self.device("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "Cy")]
        let coverage = DeviceCoverage(app: try Self.app("app_info_embedded_enterprise-appex.ipa"), devices: devices)
        #expect(coverage.listed == 2 && coverage.reached == 2)
        #expect(coverage.findings(required: true, store: "d.plist").isEmpty)
    }

    @Test func anAppStoreProfileCoversNoneAndSaysSo() throws {
        let coverage = DeviceCoverage(
            app: try Self.app("app_info_ipad_appstore-cgbi-icons.ipa"), devices: [try Self.device(Self.outsider, "Bo")])
        #expect(coverage.listed == 1 && coverage.reached == 0)
        #expect(coverage.gaps.isEmpty)
        #expect(
            coverage.findings(required: false, store: "d.plist").map(\.description) == [
                "Payload/bundle.app installs on none of the 1 listed device of d.plist: profile 'XC: *' is an App Store profile, "
                    + "which provisions no device for installing over the air"
            ])
    }

    /// The app is provisioned for everyone (enterprise) but its extension carries an ad-hoc profile:
    /// a device that profile lacks is named with the extension, and the app does not reach it.
    @Test func anExtensionsOwnProfileIsCheckedToo() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let unzip = try #require(ProcessResult.which("unzip"))
            let unpacked = try ProcessResult.run(
                unzip, ["-q", Fixtures.url("ipa", "app_info_embedded_enterprise-appex.ipa").path, "-d", folder.path("x")])
            try #require(unpacked.status == 0, "\(unpacked.stderrText)")
            let appex = folder.path("x/Payload/Demo.app/PlugIns/Notification.appex/embedded.mobileprovision")
            let adHoc = Fixtures.url("mobileprovision", "app_info_match-adhoc_90devices_appex.mobileprovision")
            try FileManager.default.removeItem(atPath: appex)
            try FileManager.default.copyItem(atPath: adHoc.path, toPath: appex)
            let listed = try ProvisioningProfile(contentsOf: adHoc.path).devices[0]
            let devices = [try Self.device(listed, "Ana"), try Self.device(Self.outsider, "Bo")]
            let coverage = DeviceCoverage(app: try AppPackage.open(folder.path("x/Payload/Demo.app")).app, devices: devices)
            #expect(coverage.listed == 2 && coverage.reached == 1)
            #expect(coverage.gaps.map(\.device.udid) == [Self.outsider])
            #expect(coverage.gaps.first?.bundle.hasSuffix("Demo.app/PlugIns/Notification.appex") == true)
        }
    }

    @Test func macsAreNotExpectedOnAnIOSProfileNorIPhonesOnAMacOne() throws {
        let devices = [try Self.device("A1B2C3D4-E5F6-0718-293A-4B5C6D7E8F90", "Build Mac"), try Self.device(Self.outsider, "Bo")]
        let coverage = DeviceCoverage(app: try Self.app("app_info_embedded_enterprise-appex.ipa"), devices: devices)
        #expect(coverage.listed == 1)
        let mac = try Self.profile("app_info_macos_development.provisionprofile")
        let onMac = DeviceCoverage(app: try Self.app("app_info_embedded_enterprise-appex.ipa"), devices: devices, appProfile: mac)
        #expect(onMac.listed == 1)
        #expect(onMac.gaps.map(\.device.name) == ["Build Mac"])
    }
}
