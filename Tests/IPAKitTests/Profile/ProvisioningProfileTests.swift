import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing

@Suite(Fixtures.enabled) struct ProvisioningProfileTests {
    static let kinds: [(String, ProvisioningProfile.Kind, Int)] = [
        ("app_info_embedded-ipa_enterprise-inhouse.mobileprovision", .enterprise, 0),
        ("app_info_free-personal-team_7day_development.mobileprovision", .development, 1),
        ("app_info_ios_adhoc_1device.mobileprovision", .adHoc, 1),
        ("app_info_ios_appstore.mobileprovision", .appStore, 0),
        ("app_info_ios_development.mobileprovision", .development, 1),
        ("app_info_macos_development.provisionprofile", .development, 1),
        ("app_info_match-adhoc_90devices_appex.mobileprovision", .adHoc, 90),
        ("fastlane_match_appstore.mobileprovision", .appStore, 0),
        ("ipa-server_xcode-managed_dev_35devices.mobileprovision", .development, 35)
    ]

    @Test func everyRealProfileReadsWithTheRightKind() throws {
        for (file, kind, devices) in Self.kinds {
            let profile = try ProvisioningProfile(contentsOf: Fixtures.url("mobileprovision", file).path)
            #expect(profile.kind == kind, "\(file)")
            #expect(profile.devices.count == devices, "\(file)")
            #expect(!profile.signers.isEmpty, "\(file) names its signers")
        }
    }

    @Test func readsTheFactsOfAnAdHocProfile() throws {
        let profile = try ProvisioningProfile(
            contentsOf: Fixtures.url("mobileprovision", "app_info_ios_adhoc_1device.mobileprovision").path)
        #expect(profile.name == "iOS Full AdHoc")
        #expect(profile.teamIdentifier == "WKR87TTKML")
        #expect(profile.applicationIdentifier == "WKR87TTKML.com.icyleaf.appinfo.test")
        #expect(profile.apsEnvironment == "production")
        #expect(!profile.getTaskAllow)
        #expect(profile.creationDate.map { PlistDate($0).iso8601 } == "2020-07-21T08:44:54Z")
        #expect(profile.developerCertificates.first?.name.hasPrefix("Apple Distribution: Niceliving") == true)
        #expect(profile.signers.contains("Apple iPhone OS Provisioning Profile Signing"))
    }

    @Test func matchesAppIDsWithWildcards() throws {
        let wildcard = try ProvisioningProfile(contentsOf: Fixtures.url("mobileprovision", "app_info_ios_development.mobileprovision").path)
        #expect(wildcard.matches(bundleIdentifier: "com.icyleaf.appinfo.test"))
        #expect(!wildcard.matches(bundleIdentifier: "com.icyleaf.appinfo.test2"))
        var star = wildcard
        star.plist["Entitlements"] = ["application-identifier": "TEAM.com.example.*"]
        #expect(star.matches(bundleIdentifier: "com.example.app.share"))
        #expect(!star.matches(bundleIdentifier: "com.other.app"))
        star.plist["Entitlements"] = ["application-identifier": "TEAM.*"]
        #expect(star.matches(bundleIdentifier: "anything.at.all"))
    }

    @Test func aFileThatIsNotACMSEnvelopeIsRefusedClearly() throws {
        try withTemporaryFolder { folder in
            let bare = try folder.write("bare.mobileprovision", "<?xml version=\"1.0\"?><plist><dict/></plist>")
            #expect(
                throws: Diagnostic.ipa(
                    "is not a provisioning profile (CMS envelope: element at byte 0 claims 63 bytes, more than remain)", file: bare)
            ) {
                try ProvisioningProfile(contentsOf: bare)
            }
            let real = try Data(contentsOf: Fixtures.url("mobileprovision", "app_info_ios_adhoc_1device.mobileprovision"))
            let truncated = try folder.write("truncated.mobileprovision", real.prefix(real.count / 2))
            expectDiagnostic(IPAProblem.self) { try ProvisioningProfile(contentsOf: truncated) }
            for length in stride(from: 0, to: 400, by: 7) {
                expectDiagnostic(IPAProblem.self) { try ProvisioningProfile(data: real.prefix(length)) }
            }
        }
    }
}

/// Profiles built by hand, for shapes no real profile has.
@Suite struct MalformedProfileTests {
    /// Found by the profile fuzzer: a certificate that is an empty SEQUENCE crashed the common-name
    /// lookup. Now such a certificate is skipped and the profile still reads.
    @Test func aCertificateWithoutFieldsIsSkipped() throws {
        let data = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("Fuzz/Regressions/profile/certificate-without-fields"))
        let profile = try ProvisioningProfile(data: data)
        #expect(profile.signers == [])
        #expect(profile.plist.isEmpty)
    }
}

/// Issue 31: a profile whose fields are not of the kinds Apple writes is refused with the field named,
/// not shown as an ad-hoc profile with blank fields and embedded by `package --profile`.
@Suite struct WrongTypedProfileTests {
    /// A CMS SignedData envelope around `plist`, with no signer (the reader does not verify it).
    static func envelope(_ plist: String) -> Data {
        func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            var length: [UInt8] = []
            var rest = content.count
            while rest > 0 { length.insert(UInt8(rest & 0xff), at: 0); rest >>= 8 }
            return [tag] + (content.count < 0x80 ? [UInt8(content.count)] : [0x80 | UInt8(length.count)] + length) + content
        }
        let data: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x01]
        let signedData: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]
        let content = element(0x30, data + element(0xa0, element(0x04, Array(plist.utf8))))
        let signed = element(0x30, [0x02, 0x01, 0x01] + element(0x31, []) + content)
        return Data(element(0x30, signedData + element(0xa0, signed)))
    }

    static func plist(_ fields: String) -> String {
        "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>Name</key><string>P</string>\(fields)</dict></plist>"
    }

    @Test func aFieldOfTheWrongKindIsNamed() throws {
        #expect(try ProvisioningProfile(data: Self.envelope(Self.plist(""))).name == "P")
        let cases: [(String, String)] = [
            ("<key>ExpirationDate</key><string>2099-01-01</string>", "the profile's ExpirationDate is a string, not a date"),
            ("<key>ProvisionedDevices</key><string>abc</string>", "the profile's ProvisionedDevices is a string, not an array"),
            (
                "<key>ProvisionedDevices</key><array><string>a</string><integer>1</integer></array>",
                "the profile's ProvisionedDevices[1] is an integer, not a string"
            ),
            ("<key>Entitlements</key><array/>", "the profile's Entitlements is an array, not a dictionary"),
            ("<key>TeamIdentifier</key><string>ABCDE12345</string>", "the profile's TeamIdentifier is a string, not an array"),
            ("<key>ProvisionsAllDevices</key><string>yes</string>", "the profile's ProvisionsAllDevices is a string, not a bool"),
            (
                "<key>DeveloperCertificates</key><array><string>MII</string></array>",
                "the profile's DeveloperCertificates[0] is a string, not a data"
            )
        ]
        for (fields, message) in cases {
            #expect(throws: Diagnostic.ipa(message)) { try ProvisioningProfile(data: Self.envelope(Self.plist(fields))) }
        }
    }
}
