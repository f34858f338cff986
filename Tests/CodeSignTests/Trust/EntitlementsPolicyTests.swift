import CodeSign
import PlistKit
import Testing

/// Signed entitlements against a profile's, without fixtures.
struct EntitlementsPolicyTests {
    let granted = PlistDictionary([
        ("application-identifier", .string("TEAM.*")),
        ("com.apple.developer.team-identifier", .string("TEAM")),
        ("keychain-access-groups", .array([.string("TEAM.*"), .string("com.apple.token")])),
        ("get-task-allow", .bool(false)),
        ("aps-environment", .string("production")),
        ("com.apple.developer.associated-domains", .string("*"))
    ])

    func problems(_ pairs: [(String, PlistValue)], bundle: String? = "com.example.app") -> [String] {
        EntitlementsPolicy.problems(signed: PlistDictionary(pairs), granted: granted, bundleIdentifier: bundle)
    }

    @Test func whatTheProfileGrantsIsAllowed() {
        #expect(
            problems([
                ("application-identifier", .string("TEAM.com.example.app")), ("com.apple.developer.team-identifier", .string("TEAM")),
                ("keychain-access-groups", .array([.string("TEAM.com.example.app"), .string("com.apple.token")])),
                ("get-task-allow", .bool(false)), ("aps-environment", .string("production")),
                ("com.apple.developer.associated-domains", .array([.string("applinks:example.com")]))
            ]).isEmpty)
    }

    @Test func eachMismatchIsNamed() {
        #expect(
            problems([
                ("application-identifier", .string("TEAM.com.example.other")), ("keychain-access-groups", .array([.string("OTHER.group")])),
                ("get-task-allow", .bool(true)), ("aps-environment", .string("development")), ("com.apple.developer.healthkit", .bool(true))
            ]) == [
                "entitlement application-identifier is TEAM.com.example.other, the profile's is TEAM.com.example.app (TEAM.* with the bundle id)",
                "entitlement application-identifier TEAM.com.example.other does not name the bundle id com.example.app",
                "entitlement keychain-access-groups is [\"OTHER.group\"], the profile allows [\"TEAM.*\", \"com.apple.token\"]",
                "entitlement get-task-allow is true, but the profile does not allow debugging (get-task-allow false)",
                "entitlement aps-environment is \"development\", the profile's is \"production\"",
                "entitlement com.apple.developer.healthkit is not granted by the profile"
            ])
    }

    @Test func aProfileForAnotherAppIdDoesNotCoverTheBundle() {
        let explicit = PlistDictionary([("application-identifier", .string("TEAM.com.example.one.*"))])
        #expect(
            EntitlementsPolicy.problems(
                signed: PlistDictionary([("application-identifier", .string("TEAM.com.example.two"))]), granted: explicit,
                bundleIdentifier: "com.example.two") == [
                    "the profile's application-identifier TEAM.com.example.one.* does not cover the bundle id com.example.two"
                ])
    }
}
