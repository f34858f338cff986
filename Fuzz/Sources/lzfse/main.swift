import Compression
import FuzzDriver

runFuzzer { data in
    // The whole input as an LZFSE stream, and as a bare LZVN stream; both bounded by maxOutput.
    let bytes = [UInt8](data)
    let limit = 1 << 22
    if let output = try? LZFSEDecoder.decode(bytes, maxOutput: limit) {
        precondition(output.count <= limit, "LZFSE output beyond maxOutput")
        // Decoding is deterministic, and a tighter limit refuses rather than truncates.
        precondition((try? LZFSEDecoder.decode(bytes, maxOutput: limit)) == output, "a second decode differs")
        if !output.isEmpty { precondition((try? LZFSEDecoder.decode(bytes, maxOutput: output.count - 1)) == nil, "maxOutput not enforced") }
    }
    if let output = try? LZVNDecoder.decode(bytes, maxOutput: 1 << 16) {
        precondition(output.count <= 1 << 16, "LZVN output beyond maxOutput")
    }
}
