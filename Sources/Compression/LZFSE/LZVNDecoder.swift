import SystemSupport

/// Decodes LZVN, the byte-oriented LZ77 code LZFSE uses for small blocks (`bvxn`), also usable on
/// its own.
///
/// Each opcode's first byte says its kind; kinds carry a literal (copied from the stream), a match
/// (copied from earlier output) or both:
///
/// | first byte        | kind                 | literal | match length | distance               |
/// |-------------------|----------------------|---------|--------------|------------------------|
/// | `LLMMMDDD` (D<6)  | small distance, +1 B | L       | M + 3        | `DDD` and next byte    |
/// | `101LLMMM`        | medium distance, +2 B| L       | from 5 bits  | 14 bits                |
/// | `LLMMM111`        | large distance, +2 B | L       | M + 3        | next two bytes         |
/// | `LLMMM110` (≥0x46)| previous distance    | L       | M + 3        | the last one           |
/// | `1110LLLL`/`0xE0` | literal              | 1-15 / next byte + 16 | |                      |
/// | `1111MMMM`/`0xF0` | match                |         | 1-15 / next byte + 16 | the last one  |
/// | `0x0E`, `0x16`    | nop                  |         |              |                        |
/// | `0x06` + 7 bytes  | end of stream        |         |              |                        |
///
/// Other first bytes (`0x1E`-`0x3E` ending `110`, `0x70`-`0x7F`, `0xD0`-`0xDF`) are invalid.
public enum LZVNDecoder {
    /// Decodes an LZVN stream up to its end-of-stream opcode (bytes after it are ignored).
    ///
    /// - Parameter maxOutput: the most bytes the stream may decode to; more is an error.
    /// - Throws: ``Diagnostic`` naming the byte offset of the faulty opcode.
    public static func decode(_ input: UnsafeRawBufferPointer, maxOutput: Int) throws -> [UInt8] {
        guard let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count > 0 else {
            throw Diagnostic.lzfse("empty LZVN stream: no end-of-stream opcode", offset: 0)
        }
        var capacity = min(max(maxOutput, 0), max(4096, input.count * 4))
        var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + ByteCopy.slack)
        defer { buffer.deallocate() }
        var state = LZVNState()
        while true {
            let outcome: LZVNOutcome
            do {
                outcome = try LZVNState.run(&state, input: base, inputEnd: input.count, output: buffer, outputEnd: capacity)
            } catch {
                throw Diagnostic.lzfse(error.message, offset: error.offset)
            }
            if outcome == .endOfStream { break }
            guard capacity < maxOutput else {
                throw Diagnostic.lzfse("decodes to more than maxOutput (\(maxOutput) bytes)", offset: state.source, isLimitExceeded: true)
            }
            capacity = min(maxOutput, capacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + ByteCopy.slack)
            grown.initialize(from: buffer, count: state.written)
            buffer.deallocate()
            buffer = grown
        }
        return Array(UnsafeBufferPointer(start: buffer, count: state.written))
    }

    /// Decodes an LZVN stream held in any contiguous or non-contiguous bytes (see ``decode(_:maxOutput:)-(UnsafeRawBufferPointer,_)``).
    public static func decode<Bytes: Collection<UInt8>>(_ input: Bytes, maxOutput: Int) throws -> [UInt8] {
        if let result = try input.withContiguousStorageIfAvailable({ try decode(UnsafeRawBufferPointer($0), maxOutput: maxOutput) }) {
            return result
        }
        return try Array(input).withUnsafeBytes { try decode($0, maxOutput: maxOutput) }
    }
}
