import CodeSign
import Foundation
import Testing

@Suite struct DigestTests {
    @Test func digestsMatchThePublishedTestVectors() {
        let abc = Array("abc".utf8)
        #expect(hex(Digest.sha1(abc)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(Digest.sha256(abc)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(Digest.sha384(abc))
                == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        #expect(hex(Digest.hash(.sha256Truncated, abc)) == "ba7816bf8f01cfea414140de5dae2223b00361a3")
        #expect(hex(Digest.sha1([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func pageHashesSplitAtThePageSizeAndStopAtTheLimit() {
        let bytes = [UInt8](repeating: 7, count: 10_000)
        let pages = CodeHashing.pageHashes(bytes, limit: 9_000, pageSize: 4096, type: .sha256)
        #expect(pages.count == 3)
        #expect(pages[0] == Digest.sha256(Array(bytes[0..<4096])))
        #expect(pages[2] == Digest.sha256(Array(bytes[8192..<9000])))
        #expect(CodeHashing.pageHashes(bytes, limit: 100, pageSize: 0, type: .sha1) == [Digest.sha1(Array(bytes[0..<100]))])
    }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
