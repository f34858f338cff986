import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing
import XcodeProjectEditing

@testable import AdhocBuildKit

/// The enrollment challenge: made and checked with the same key and identifier it is accepted until it
/// expires; a flipped bit of its MAC, another identifier, another key or a mangled field is refused.
@Suite struct EnrollmentChallengeTests {
    static let identifier = "com.example.builds.udid"
    static let issued = Date(timeIntervalSince1970: 1_800_000_000)
    static let ninetyDays: TimeInterval = 90 * 86_400

    private func make(_ key: EnrollmentKey) throws -> String {
        try EnrollmentChallenge.make(key: key, identifier: Self.identifier, issued: Self.issued, validFor: Self.ninetyDays)
    }

    @Test func aChallengeIsAcceptedWithItsKeyAndIdentifierUntilItExpires() throws {
        let key = try EnrollmentKey.random()
        let challenge = try make(key)
        let fields = challenge.split(separator: ".")
        #expect(fields.count == 5 && fields[0] == "v1" && fields[1] == "1800000000" && fields[2] == "1807776000")
        let expires = try EnrollmentChallenge.check(
            challenge, key: key, identifier: Self.identifier, now: Self.issued.addingTimeInterval(60))
        #expect(expires == Self.issued.addingTimeInterval(Self.ninetyDays))
        // Two challenges of the same moment differ by their nonce.
        #expect(try make(key) != challenge)
    }

    @Test func aChallengePastItsExpiryIsRefused() throws {
        let key = try EnrollmentKey.random()
        let challenge = try make(key)
        let error = try requireDiagnostic(CodeSignProblem.self) {
            try EnrollmentChallenge.check(
                challenge, key: key, identifier: Self.identifier, now: Self.issued.addingTimeInterval(Self.ninetyDays))
        }
        #expect(error.code == .codeSign(.expired))
        #expect(error.message.contains("expired on 2027-04-15T08:00:00Z"), "\(error)")
    }

    @Test(arguments: [0, 5, 31 * 8 + 7]) func aFlippedBitOfTheMACIsRefused(bit: Int) throws {
        let key = try EnrollmentKey.random()
        let challenge = try make(key)
        let parts = challenge.split(separator: ".").map(String.init)
        var mac = try #require(EnrollmentChallenge.bytes(base64url: parts[4]))
        mac[bit / 8] ^= UInt8(1 << (bit % 8))
        let forged = (parts.prefix(4) + [EnrollmentChallenge.base64url(mac)]).joined(separator: ".")
        let error = try requireDiagnostic(CodeSignProblem.self) {
            try EnrollmentChallenge.check(forged, key: key, identifier: Self.identifier, now: Self.issued)
        }
        #expect(error.code == .codeSign(.signatureInvalid))
    }

    @Test func anotherIdentifierOrKeyIsRefused() throws {
        let key = try EnrollmentKey.random()
        let challenge = try make(key)
        for (otherKey, identifier) in [(key, "com.example.other.udid"), (try EnrollmentKey.random(), Self.identifier)] {
            let error = try requireDiagnostic(CodeSignProblem.self) {
                try EnrollmentChallenge.check(challenge, key: otherKey, identifier: identifier, now: Self.issued)
            }
            #expect(error.code == .codeSign(.signatureInvalid))
            #expect(error.message.contains("MAC does not match"))
        }
    }

    @Test func aLaterExpiryWrittenIntoTheChallengeBreaksItsMAC() throws {
        let key = try EnrollmentKey.random()
        var parts = try make(key).split(separator: ".").map(String.init)
        parts[2] = "9999999999"
        let error = try requireDiagnostic(CodeSignProblem.self) {
            try EnrollmentChallenge.check(parts.joined(separator: "."), key: key, identifier: Self.identifier, now: Self.issued)
        }
        #expect(error.code == .codeSign(.signatureInvalid))
    }

    @Test(arguments: [
        "", "v1", "v2.1.2.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "v1.2.1.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "v1.-1.2.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "v1.1.2.AAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "v1.1.2.AAAAAAAAAAAAAAAAAAAAAA.AAAA+AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "v1.1.2.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.x"
    ])
    func aMangledChallengeIsMalformed(challenge: String) throws {
        let key = try EnrollmentKey.random()
        let error = try requireDiagnostic(CodeSignProblem.self) {
            try EnrollmentChallenge.check(challenge, key: key, identifier: Self.identifier, now: Self.issued)
        }
        #expect(error.code == .codeSign(.malformed), "\(error)")
        #expect(error.message.hasPrefix("the enrollment challenge "))
    }

    @Test func theKeyFileIsWrittenPrivateAndReadBackWithItsSizeChecked() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let path = folder.path("udid.key")
            let key = try EnrollmentKey.random()
            try key.write(to: path)
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(try EnrollmentKey(contentsOf: path).bytes == key.bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["udid.key"])
            // An existing key is never replaced.
            let again = try #require(expectDiagnostic(BuildProblem.self) { try EnrollmentKey.random().write(to: path) })
            #expect(again.file == path)
            #expect(try EnrollmentKey(contentsOf: path).bytes == key.bytes)
            let short = try folder.write("short.key", Data(repeating: 1, count: 31))
            let error = try #require(expectDiagnostic(BuildProblem.self) { try EnrollmentKey(contentsOf: short) })
            #expect(
                error.description
                    == "\(short): is 31 bytes, not the 32 of an enrollment key (make one with: adhocbuild devices key -o FILE)")
        }
    }
}
