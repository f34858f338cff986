import Crypto
import Foundation
import SystemSupport
import TestSupport
import Testing

/// Digests against known answers and the `openssl dgst` command; a stream fed in pieces gives the
/// digest of the whole.
@Suite struct DigestTests {
    @Test func digestsOfTheEmptyInputAreTheKnownOnes() {
        #expect(Digest.sha256([UInt8]()).hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.sha1([UInt8]()).hexString == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(Digest.md5([UInt8]()).hexString == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(Digest.hash(.sha256Truncated, [UInt8]()) == Array(Digest.sha256([UInt8]()).prefix(20)))
    }

    @Test func everyTypeMatchesTheOpenSSLCommand() throws {
        let openssl = try #require(ProcessResult.which("openssl"))
        let input = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        for (type, name) in [(HashType.sha1, "-sha1"), (.sha256, "-sha256"), (.sha384, "-sha384")] {
            let result = try ProcessResult.run(openssl, ["dgst", name, "-r"], input: input)
            let expected = String(decoding: result.stdout, as: UTF8.self).prefix { $0 != " " }
            #expect(Digest.hash(type, input).hexString == expected, "\(type)")
        }
        let md5 = try ProcessResult.run(openssl, ["dgst", "-md5", "-r"], input: input)
        #expect(Digest.md5(input).hexString == String(decoding: md5.stdout, as: UTF8.self).prefix { $0 != " " })
    }

    @Test func aStreamFedInPiecesGivesTheDigestOfTheWhole() {
        let stream = DigestStream(.sha256)
        for piece in ["a", "bc"] { Array(piece.utf8).withUnsafeBytes { stream.update($0) } }
        #expect(stream.finish() == Digest.sha256(Array("abc".utf8)))
        let pages = DigestStream(.sha1)
        let page = [UInt8](repeating: 7, count: 4096)
        page.withUnsafeBytes { bytes in
            #expect(pages.digest(of: bytes) == Digest.sha1(page))
            #expect(pages.matches(bytes, Digest.sha1(page)))
        }
    }
}
