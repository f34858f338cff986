import CZlib

/// Whole-buffer raw deflate through zlib at one level, reusing one stream; one per thread.
/// Used where zlib compresses smaller than libdeflate (see ``DeflateMethod``).
final class ZlibDeflater {
    /// zlib keeps a pointer back to the stream, so it lives at a fixed address.
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = deflateInit2_(
            stream, Int32(level), Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib could not set up a compressor (out of memory)")
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
