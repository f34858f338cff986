import Crypto
import Foundation
import SystemSupport
import TestSupport
import Testing

/// HMAC-SHA256 against RFC 4231's test vectors and the `openssl mac` command, the constant-time comparison,
/// and random bytes that differ from call to call.
@Suite struct HMACTests {
    @Test func hmacSHA256MatchesRFC4231TestCase2() {
        let mac = HMAC.sha256(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
        #expect(mac.hexString == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hmacSHA256MatchesTheOpenSSLCommand() throws {
        let openssl = try #require(ProcessResult.which("openssl"))
        let key: [UInt8] = (0..<32).map { UInt8($0 * 7 & 0xff) }
        let message = Array("adhocbuild-udid-v1|1|2|n|com.example".utf8)
        let result = try ProcessResult.run(
            openssl, ["mac", "-digest", "SHA256", "-macopt", "hexkey:\(key.hexString)", "HMAC"], input: Data(message))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == HMAC.sha256(key: key, message).hexString)
    }

    @Test func constantTimeEqualComparesBytesAndLengths() {
        #expect(HMAC.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!HMAC.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!HMAC.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(HMAC.constantTimeEqual([], []))
    }

    @Test func randomBytesHaveTheLengthAskedAndDiffer() throws {
        let a = try RandomBytes.make(32)
        let b = try RandomBytes.make(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
    }
}
