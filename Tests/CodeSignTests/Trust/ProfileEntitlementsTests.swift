import CodeSign
import Foundation
import IPAKit
import PlistKit
import TestSupport
import Testing

/// The entitlements derived from a profile: each rule on a profile made with `openssl`, and every real
/// profile's derived entitlements allowed by the policy.
@Suite struct ProfileEntitlementsTests {
    static let bundle = "com.example.app"

    /// Derives from a test profile with `change` applied.
    func derived(_ change: (inout TestProfile) -> Void) throws -> (PlistDictionary, ProvisioningProfile) {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            var spec = TestProfile(certificates: [])
            change(&spec)
            let profile = try spec.read("test.mobileprovision", with: made)
            return (ProfileEntitlements.derive(from: profile, bundleIdentifier: Self.bundle), profile)
        }
    }

    @Test func theApplicationIdentifierIsTheTeamPrefixAndTheBundleIdForWildcardAndExplicitAppIds() throws {
        for appID in ["ABCDE12345.*", "ABCDE12345.com.example.*", "ABCDE12345.com.example.app"] {
            let (entitlements, _) = try derived { $0.applicationIdentifier = appID }
            #expect(entitlements["application-identifier"] == .string("ABCDE12345.com.example.app"), "\(appID)")
            #expect(entitlements["com.apple.developer.team-identifier"] == .string("ABCDE12345"))
        }
    }

    @Test func keychainWildcardsBecomeTheAppsOwnGroupAndExactGroupsStay() throws {
        let (entitlements, _) = try derived { $0.keychainAccessGroups = ["ABCDE12345.*", "com.apple.token", "ABCDE12345.com.example.*"] }
        #expect(entitlements["keychain-access-groups"] == .array([.string("ABCDE12345.com.example.app"), .string("com.apple.token")]))
        let (uncovered, _) = try derived { $0.keychainAccessGroups = ["ABCDE12345.com.other.*"] }
        #expect(uncovered["keychain-access-groups"] == nil)
    }

    @Test func getTaskAllowIsWhatTheProfileSays() throws {
        #expect(try derived { $0.getTaskAllow = true }.0["get-task-allow"] == .bool(true))
        #expect(try derived { $0.getTaskAllow = false }.0["get-task-allow"] == .bool(false))
    }

    @Test func anyGrantsAreDroppedRatherThanSignedAndTheRestIsCopiedInTheProfilesOrder() throws {
        let (entitlements, _) = try derived {
            $0.more = [
                ("aps-environment", .string("production")), ("com.apple.developer.associated-domains", .string("*")),
                ("beta-reports-active", .bool(true)), ("com.apple.developer.icloud-services", .string("*")),
                ("com.apple.security.application-groups", .array([])), ("com.apple.developer.icloud-container-identifiers", .array([])),
                ("com.apple.developer.ubiquity-kvstore-identifier", .string("ABCDE12345.*")),
                ("com.apple.developer.pass-type-identifiers", .array([.string("ABCDE12345.*")])),
                ("com.apple.developer.in-app-payments", .array([.string("*"), .string("merchant.com.example")])),
                ("com.apple.developer.healthkit", .bool(true))
            ]
        }
        #expect(
            entitlements.keys == [
                "application-identifier", "keychain-access-groups", "get-task-allow", "com.apple.developer.team-identifier",
                "aps-environment", "beta-reports-active", "com.apple.developer.ubiquity-kvstore-identifier",
                "com.apple.developer.pass-type-identifiers", "com.apple.developer.in-app-payments", "com.apple.developer.healthkit"
            ])
        #expect(entitlements["aps-environment"] == .string("production"))
        #expect(entitlements["beta-reports-active"] == .bool(true))
        #expect(entitlements["com.apple.developer.ubiquity-kvstore-identifier"] == .string("ABCDE12345.com.example.app"))
        #expect(entitlements["com.apple.developer.pass-type-identifiers"] == .array([.string("ABCDE12345.*")]))
        #expect(entitlements["com.apple.developer.in-app-payments"] == .array([.string("merchant.com.example")]))
    }

    @Test func theDerivedEntitlementsPassThePolicyAgainstTheSameProfile() throws {
        let (entitlements, profile) = try derived { $0.applicationIdentifier = "ABCDE12345.com.example.*" }
        #expect(EntitlementsPolicy.problems(signed: entitlements, granted: profile.entitlements, bundleIdentifier: Self.bundle) == [])
    }

    @Test(Fixtures.enabled) func aRealFullCapabilityProfileDerivesWhatXcodeWouldSign() throws {
        let profile = try ProvisioningProfile(contentsOf: Fixtures.url("mobileprovision", "app_info_ios_development.mobileprovision").path)
        let entitlements = ProfileEntitlements.derive(from: profile, bundleIdentifier: "com.icyleaf.appinfo.test")
        #expect(entitlements["application-identifier"] == .string("WKR87TTKML.com.icyleaf.appinfo.test"))
        #expect(
            entitlements["keychain-access-groups"] == .array([.string("WKR87TTKML.com.icyleaf.appinfo.test"), .string("com.apple.token")]))
        #expect(entitlements["com.apple.developer.ubiquity-kvstore-identifier"] == .string("WKR87TTKML.com.icyleaf.appinfo.test"))
        #expect(entitlements["get-task-allow"] == .bool(true))
        #expect(entitlements["aps-environment"] == .string("development"))
        #expect(entitlements["com.apple.developer.pass-type-identifiers"] == .array([.string("WKR87TTKML.*")]))
        let dropped = [
            "com.apple.developer.associated-domains", "com.apple.developer.icloud-services", "com.apple.security.application-groups",
            "com.apple.developer.in-app-payments", "com.apple.developer.icloud-container-identifiers",
            "com.apple.developer.icloud-container-development-container-identifiers", "com.apple.developer.ubiquity-container-identifiers"
        ]
        #expect(entitlements.keys == profile.entitlements.keys.filter { !dropped.contains($0) })
    }

    @Test(Fixtures.enabled) func everyRealProfilesDerivedEntitlementsPassThePolicy() throws {
        for (name, profile) in try TestProfile.realProfiles() {
            let appID = try #require(profile.applicationIdentifier, "\(name)")
            let pattern = appID.drop { $0 != "." }.dropFirst()
            let bundle = pattern.hasSuffix("*") ? pattern.dropLast() + "fixture" : String(pattern)
            #expect(profile.matches(bundleIdentifier: bundle), "\(name): \(bundle)")
            let entitlements = ProfileEntitlements.derive(from: profile, bundleIdentifier: bundle)
            #expect(entitlements.contains("application-identifier") || entitlements.contains("com.apple.application-identifier"), "\(name)")
            let problems = EntitlementsPolicy.problems(signed: entitlements, granted: profile.entitlements, bundleIdentifier: bundle)
            #expect(problems == [], "\(name)")
        }
    }
}
