import SystemSupport

/// Decodes LZFSE, Apple's LZ77 + finite state entropy compression (the pixel data of `Assets.car`
/// renditions, `compression_decode_buffer` with `COMPRESSION_LZFSE`).
///
/// A stream is a sequence of blocks, each starting with a 4-byte magic: `bvx2` (compressed, packed
/// header), `bvx1` (compressed, plain header), `bvxn` (LZVN), `bvx-` (stored bytes), and `bvx$`,
/// which ends the stream (bytes after it are ignored). Matches may reach back into earlier blocks.
///
/// Hostile input is an error, never a crash: every count is checked against the input and against
/// `maxOutput` before anything is allocated, and every match and literal against what is written.
public enum LZFSEDecoder {
    /// Decodes the LZFSE stream in `input`.
    ///
    /// - Parameter maxOutput: the most bytes the stream may decode to (an `Assets.car` rendition
    ///   says its size); a stream declaring more is refused before its output is allocated.
    /// - Throws: ``Diagnostic`` naming the block and its byte offset.
    public static func decode(_ input: UnsafeRawBufferPointer, maxOutput: Int) throws -> [UInt8] {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else {
            throw Diagnostic.lzfse("empty input: no LZFSE block", block: 0, offset: 0)
        }
        let total = try BlockMap.outputSize(base, count: input.count, maxOutput: maxOutput)
        return try [UInt8](unsafeUninitializedCapacity: total + ByteCopy.slack) { buffer, initializedCount in
            guard let output = buffer.baseAddress else { return }
            try decodeBlocks(base, count: input.count, output: output)
            initializedCount = total
        }
    }

    /// Decodes the LZFSE stream in any bytes (see ``decode(_:maxOutput:)-(UnsafeRawBufferPointer,_)``).
    public static func decode<Bytes: Collection<UInt8>>(_ input: Bytes, maxOutput: Int) throws -> [UInt8] {
        if let result = try input.withContiguousStorageIfAvailable({ try decode(UnsafeRawBufferPointer($0), maxOutput: maxOutput) }) {
            return result
        }
        return try Array(input).withUnsafeBytes { try decode($0, maxOutput: maxOutput) }
    }

    /// Decodes every block into `output`, which has room for the size ``BlockMap`` found plus slack.
    private static func decodeBlocks(_ input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>) throws {
        // Made at the first compressed block: streams of small inputs have none.
        var tables: CompressedBlockDecoder?
        defer { tables?.deallocate() }
        var offset = 0
        var written = 0
        var number = 0
        while true {
            do {
                let block = try BlockMap.block(input, at: offset, count: count)
                switch block.kind {
                case .end:
                    return
                case .stored:
                    (output + written).initialize(from: input + block.payloadStart, count: block.rawCount)
                case .lzvn:
                    var state = LZVNState(source: block.payloadStart, written: written, distance: 0)
                    let end = block.payloadStart + block.payloadCount
                    let outcome = try LZVNState.run(
                        &state, input: input, inputEnd: end, output: output, outputEnd: written + block.rawCount)
                    guard outcome == .endOfStream else {
                        throw StreamFault("LZVN block writes more than the \(block.rawCount) bytes it declares")
                    }
                    guard state.source == end else {
                        throw StreamFault("LZVN block ends \(end - state.source) bytes before its payload does")
                    }
                    guard state.written == written + block.rawCount else {
                        throw StreamFault("LZVN block writes \(state.written - written) of the \(block.rawCount) bytes it declares")
                    }
                case .compressed(let header):
                    let decoder = tables ?? CompressedBlockDecoder()
                    tables = decoder
                    try decoder.decode(header, input: input, start: offset, output: output, written: written)
                }
                offset = block.next
                written += block.rawCount
                number += 1
            } catch let fault as StreamFault {
                throw Diagnostic.lzfse(fault.message, block: number, offset: fault.offset ?? offset, isLimitExceeded: fault.isLimitExceeded)
            }
        }
    }
}
