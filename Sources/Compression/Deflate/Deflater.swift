import CLibDeflate
import Foundation

/// Whole-buffer deflate through libdeflate, one compressor per thread.
public final class Deflater {
    private let compressor: OpaquePointer
    let level: Int32

    /// A compressor at libdeflate's `level` (0, stored blocks, to 12).
    public init(level: Int) {
        self.level = Int32(level)
        compressor = libdeflate_alloc_compressor(Int32(level))!
    }

    deinit { libdeflate_free_compressor(compressor) }

    /// Raw deflate of `input`, or nil when the result would not be smaller than the input.
    public func deflate(_ input: UnsafeRawBufferPointer) -> [UInt8]? {
        let bound = libdeflate_deflate_compress_bound(compressor, input.count)
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { out in
            libdeflate_deflate_compress(compressor, input.baseAddress, input.count, out.baseAddress, bound)
        }
        guard written > 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// The CRC-32 of `bytes` continued from `crc` (0 for the first bytes), as zip and PNG use it.
    public static func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        libdeflate_crc32(crc, bytes.baseAddress, bytes.count)
    }

    /// Inflates raw deflate `input` into exactly `size` bytes, or nil when it is not that.
    public static func inflate(_ input: UnsafeRawBufferPointer, size: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: size)
        let inflated = output.withUnsafeMutableBytes { Inflater().inflate(input, into: $0) }
        return inflated ? output : nil
    }
}

/// Whole-buffer raw inflate through one libdeflate decompressor, for many buffers on one thread.
public final class Inflater {
    private let decompressor: OpaquePointer

    /// A decompressor; stops the process only when libdeflate cannot allocate one.
    public init() {
        guard let decompressor = libdeflate_alloc_decompressor() else {
            preconditionFailure("libdeflate could not set up a decompressor (out of memory)")
        }
        self.decompressor = decompressor
    }

    deinit { libdeflate_free_decompressor(decompressor) }

    /// Inflates raw deflate `input` into all of `output`; false unless it is a complete stream of
    /// exactly `output.count` bytes.
    public func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        var actual = 0
        let result = libdeflate_deflate_decompress(
            decompressor, input.baseAddress, input.count, output.baseAddress, output.count, &actual)
        return result == LIBDEFLATE_SUCCESS && actual == output.count
    }

    /// Inflates all of `input`, a complete raw deflate stream, into exactly the first `count`
    /// bytes of `output`; false unless it is that.
    public func inflateExactly(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, _ count: Int) -> Bool {
        var consumed = 0
        var produced = 0
        let result = libdeflate_deflate_decompress_ex(
            decompressor, input.baseAddress, input.count, output.baseAddress, count, &consumed, &produced)
        return result == LIBDEFLATE_SUCCESS && produced == count && consumed == input.count
    }
}

/// One chunk of a file compressed on its own and made joinable: every chunk but the last has
/// its final-block bit cleared and ends with an empty stored block (the `00 00 FF FF` of a
/// zlib sync flush), so the chunks laid end to end form one valid deflate stream.
public enum DeflateChunk {
    /// Turns libdeflate's complete stream for a non-final chunk into a continuable one.
    public static func makeContinuable(_ stream: [UInt8]) throws -> [UInt8] {
        let layout = try stream.withUnsafeBytes { raw -> DeflateBlockScanner.Layout in
            var scanner = DeflateBlockScanner(raw)
            return try scanner.scan()
        }
        var output = Array(stream[0..<((layout.endBit + 7) / 8)])
        output[layout.finalBlockBit / 8] &= ~UInt8(1 << (layout.finalBlockBit % 8))
        // An empty stored block: three zero header bits at the end bit, then byte alignment,
        // then LEN 0000 and NLEN FFFF. The padding after libdeflate's last block is already zero.
        let headerEnd = layout.endBit + 3
        if headerEnd > output.count * 8 { output.append(0) }
        let clearFrom = layout.endBit
        for bit in clearFrom..<(output.count * 8) { output[bit / 8] &= ~UInt8(1 << (bit % 8)) }
        output += [0x00, 0x00, 0xFF, 0xFF]
        return output
    }
}
