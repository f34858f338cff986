import Testing

@testable import LZFSE

@Suite struct HandBuiltStreamTests {
    @Test func storedBlock() throws {
        let stream = Array("bvx-".utf8) + [5, 0, 0, 0] + Array("hello".utf8) + Array("bvx$".utf8)
        #expect(try LZFSEDecoder.decode(stream, maxOutput: 100) == Array("hello".utf8))
    }
}
