import CZlib

/// Whole-buffer raw deflate through zlib at one level, reusing one stream; one per thread.
/// Used where zlib compresses smaller than libdeflate (see ``DeflateMethod``): small text.
///
/// The window is the smallest that reaches back over `largestInput` bytes: zlib matches at most
/// its window less 262 bytes back, so up to that size the output is byte for byte the output of
/// zlib's default 32 KiB window (hash table and block sizes are unchanged), and a 4 KiB window
/// for the small files that come here deflates them a fifth faster (less memory to touch per
/// file). Longer input is deflated correctly too, though matches farther back are not found.
final class ZlibDeflater {
    /// zlib keeps a pointer back to the stream, so it lives at a fixed address.
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int, largestInput: Int = 1 << 15) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, Int32(level), Z_DEFLATED, -ZlibDeflater.windowBits(reaching: largestInput), 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib could not set up a compressor (out of memory)")
    }

    /// The smallest window (9 to 15 bits) whose reach, its size less zlib's 262-byte lookahead,
    /// covers `size` bytes.
    static func windowBits(reaching size: Int) -> Int32 {
        var bits: Int32 = 9
        while bits < 15 && (1 << bits) - 262 < size { bits += 1 }
        return bits
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Raw deflate of `input` (a complete stream, last block marked final).
    func deflate(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        deflateReset(stream)
        let bound = Int(deflateBound(stream, UInt(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { out -> Int in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(input.count)
            stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(out.count)
            let status = CZlib.deflate(stream, Z_FINISH)
            // deflateBound is enough for Z_FINISH in one call, so anything else is a zlib bug.
            precondition(status == Z_STREAM_END, "zlib did not finish within deflateBound")
            return out.count - Int(stream.pointee.avail_out)
        }
        output.removeSubrange(written...)
        return output
    }
}
