import CodeSign
import Foundation
import IPAKit
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// Every refusal before signing, each one line naming its file, on identities and profiles made with `openssl`.
@Suite struct SigningPreflightTests {
    static let bundle = "com.example.app"
    static let bundlePath = "Payload/Test.app"
    static let executable = "Payload/Test.app/Test"

    /// A made identity (the RSA one), a profile listing its certificate with `change` applied, and the profile's path.
    struct Setup {
        var made: TestIdentities
        var identity: SigningIdentity
        var profile: ProvisioningProfile
        var profilePath: String

        /// The identity with the default test profile listing its certificate, `change` applied.
        static func make(_ made: TestIdentities, _ identity: SigningIdentity, _ change: (inout TestProfile) -> Void) throws -> Setup {
            var spec = TestProfile(certificates: [identity.certificate.der])
            change(&spec)
            let path = try spec.write("test.mobileprovision", with: made)
            return Setup(made: made, identity: identity, profile: try ProvisioningProfile(contentsOf: path), profilePath: path)
        }

        /// The same identity with the profile rewritten from the default one with `change` applied.
        func changingProfile(_ change: (inout TestProfile) -> Void) throws -> Setup { try Setup.make(made, identity, change) }

        /// The preflight for the test bundle with these and the given slices, entitlements and time.
        func check(
            identity: SigningIdentity? = nil, profile: ProvisioningProfile?? = nil, slices: [MachOSlice]? = nil,
            entitlements: PlistDictionary? = nil, now: Date = Date()
        ) throws {
            try SigningPreflight.check(
                identity: identity ?? self.identity, profile: profile ?? self.profile, profilePath: profilePath, bundleIdentifier: bundle,
                bundlePath: bundlePath, entitlements: entitlements, entitlementsPath: "app.entitlements",
                slices: try slices ?? [SigningPreflightTests.slice(platform: 2)],
                executablePath: executable, now: now)
        }

        /// The refusal's one line, once it is checked to be of `kind`.
        func refusal(
            _ kind: CodeSignProblem, identity: SigningIdentity? = nil, profile: ProvisioningProfile?? = nil, slices: [MachOSlice]? = nil,
            entitlements: PlistDictionary? = nil, now: Date = Date()
        ) throws -> String {
            let error = try #require(
                expectCodeSign(kind) {
                    try check(identity: identity, profile: profile, slices: slices, entitlements: entitlements, now: now)
                })
            return error.description
        }
    }

    /// Runs `body` with a fresh setup: the RSA identity and a profile for `ABCDE12345.*` listing its certificate.
    func withSetup(_ body: (Setup) throws -> Void) throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            try body(try Setup.make(made, identity) { _ in })
        }
    }

    /// A 64-bit arm64 header with `LC_BUILD_VERSION` for `platform` and, when given, `LC_ENCRYPTION_INFO_64`.
    static func slice(platform: UInt32, cryptID: UInt32? = nil) throws -> MachOSlice {
        var commands: [UInt32] = [0x32, 24, platform, 0x000E_0000, 0x000E_0000, 0]
        if let cryptID { commands += [0x2c, 24, 0, 0, cryptID, 0] }
        let header: [UInt32] = [0xfeed_facf, 0x0100_000c, 0, 2, cryptID == nil ? 1 : 2, UInt32(commands.count * 4), 0, 0]
        let bytes = (header + commands).flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } }
        return try MachOSlice(bytes: bytes)
    }

    @Test func aMatchingIdentityProfileAndBinaryPass() throws {
        try withSetup { setup in
            try setup.check()
            let derived = ProfileEntitlements.derive(from: setup.profile, bundleIdentifier: Self.bundle)
            try setup.check(entitlements: derived)
            // A watch app is provisioned by an iOS profile; a framework has no profile.
            try setup.check(slices: [try Self.slice(platform: 4)])
            try setup.check(profile: .some(nil), slices: [try Self.slice(platform: 2, cryptID: 0)])
        }
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefused() throws {
        try withSetup { setup in
            var swapped = setup.identity
            swapped.certificate = try SigningIdentity(p12: setup.made.ec, password: .file(setup.made.passwordFile)).certificate
            let refusal = try setup.refusal(.identityInvalid, identity: swapped)
            #expect(
                refusal
                    == "\(setup.made.rsa): the private key does not match the certificate Apple Development: Test EC (ABCDE12345)")
        }
    }

    @Test func aCertificateOutsideItsValidityIsRefused() throws {
        try withSetup { base in
            let setup = try base.changingProfile { $0.expires = Date().addingTimeInterval(400 * 86_400) }
            let name = "Apple Development: Test RSA (ABCDE12345)"
            let end = try #require(setup.identity.certificate.notAfter)
            let expired = try setup.refusal(.expired, now: end.addingTimeInterval(86_400))
            #expect(expired == "\(setup.made.rsa): the certificate \(name) expired on \(Self.day(end))")
            let start = try #require(setup.identity.certificate.notBefore)
            let early = try setup.refusal(.expired, now: start.addingTimeInterval(-86_400))
            #expect(early == "\(setup.made.rsa): the certificate \(name) is not valid until \(Self.day(start))")
        }
    }

    @Test func aProfileThatDoesNotListTheCertificateIsRefusedNamingBoth() throws {
        try withSetup { setup in
            let ec = try SigningIdentity(p12: setup.made.ec, password: .file(setup.made.passwordFile))
            let error = try #require(expectCodeSign(.certificateNotInProfile) { try setup.check(identity: ec) })
            #expect(
                error.description
                    == "\(setup.profilePath): the profile \"Test Development\" (0E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071) does not list "
                    + "the certificate Apple Development: Test EC (ABCDE12345) among its 1 DeveloperCertificates "
                    + "(Apple Development: Test RSA (ABCDE12345))")
            #expect(error.hint?.contains("ApplicationVerificationFailed") == true)
        }
    }

    /// A profile of another team than the certificate's is refused before signing, naming both teams
    /// (it was signed, then called a broken seal with the advice to re-sign).
    @Test func aProfileOfAnotherTeamIsRefusedNamingBothTeams() throws {
        try withSetup { base in
            let setup = try base.changingProfile {
                $0.team = "ZZZZZ99999"
                $0.applicationIdentifier = "ZZZZZ99999.*"
            }
            let error = try #require(expectCodeSign(.teamMismatch) { try setup.check() })
            #expect(
                error.description
                    == "\(setup.profilePath): the profile \"Test Development\" (0E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071) is for team "
                    + "ZZZZZ99999 (its TeamIdentifier), but the certificate Apple Development: Test RSA (ABCDE12345) is of team ABCDE12345")
            #expect(error.hint?.contains("use a profile of team ABCDE12345") == true)
            // A profile at odds with itself is named by the part that is not the certificate's team.
            let prefix = try base.changingProfile { $0.applicationIdentifier = "ZZZZZ99999.*" }
            #expect(
                try prefix.refusal(.teamMismatch).contains(
                    "is for team ZZZZZ99999 (its application-identifier's prefix), but the certificate"))
        }
    }

    @Test func anExpiredProfileIsRefused() throws {
        let expires = Date().addingTimeInterval(-3 * 86_400)
        try withSetup { base in
            let setup = try base.changingProfile { $0.expires = expires }
            let refusal = try setup.refusal(.expired)
            #expect(
                refusal
                    == "\(setup.profilePath): the profile \"Test Development\" (0E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071) expired on \(Self.day(expires))"
            )
        }
    }

    @Test func aProfileForAnotherAppIdIsRefused() throws {
        try withSetup { base in
            let setup = try base.changingProfile { $0.applicationIdentifier = "ABCDE12345.com.other.*" }
            let refusal = try setup.refusal(.profileMismatch)
            #expect(
                refusal
                    == "\(setup.profilePath): the profile \"Test Development\" (0E0A1B2C-3D4E-4F60-8A1B-2C3D4E5F6071) is for the App ID "
                    + "ABCDE12345.com.other.*, which does not cover the bundle id com.example.app")
        }
    }

    @Test func aBinaryForAnotherPlatformThanTheProfileOrNoDeviceIsRefused() throws {
        try withSetup { setup in
            let macProfile = try setup.changingProfile { $0.platforms = ["OSX"] }
            let refusal = try macProfile.refusal(.sliceNotSignable)
            #expect(
                refusal
                    == "\(Self.executable): slice arm64: is built for ios, but the profile \(macProfile.profilePath) is for OSX")
            let macOS = try setup.refusal(.sliceNotSignable, slices: [try Self.slice(platform: 1)])
            #expect(
                macOS
                    == "\(Self.executable): slice arm64: is built for macos, which iPhones and iPads do not run; build it for iOS")
            let simulator = try setup.refusal(.sliceNotSignable, profile: .some(nil), slices: [try Self.slice(platform: 7)])
            #expect(
                simulator
                    == "\(Self.executable): slice arm64: is built for iossim, which iPhones and iPads do not run; build it for iOS")
        }
    }

    @Test func anEncryptedBinaryIsRefused() throws {
        try withSetup { setup in
            let refusal = try setup.refusal(.sliceNotSignable, slices: [try Self.slice(platform: 2, cryptID: 1)])
            #expect(
                refusal
                    == "\(Self.executable): slice arm64: is encrypted (App Store DRM, cryptid 1); decrypt it first")
        }
    }

    @Test func givenEntitlementsThePolicyRejectsAreRefusedWithTheFirstProblem() throws {
        try withSetup { base in
            let setup = try base.changingProfile { $0.getTaskAllow = false }
            var entitlements = ProfileEntitlements.derive(from: setup.profile, bundleIdentifier: Self.bundle)
            entitlements["get-task-allow"] = .bool(true)
            entitlements["com.apple.developer.healthkit"] = .bool(true)
            let refusal = try setup.refusal(.entitlementsNotGranted, entitlements: entitlements)
            #expect(
                refusal
                    == "app.entitlements: entitlement get-task-allow is true, but the profile does not allow debugging "
                    + "(get-task-allow false) (and 1 more)")
            let wrongApp = PlistDictionary([("application-identifier", .string("ABCDE12345.com.example.other"))])
            let withoutProfile = try setup.refusal(.entitlementsNotGranted, profile: .some(nil), entitlements: wrongApp)
            #expect(
                withoutProfile
                    == "app.entitlements: entitlement application-identifier ABCDE12345.com.example.other does not name the bundle id com.example.app"
            )
        }
    }

    /// A date as the messages print it (`2021-05-09`, UTC).
    static func day(_ date: Date) -> String { String(PlistDate(date).iso8601.prefix(10)) }
}
