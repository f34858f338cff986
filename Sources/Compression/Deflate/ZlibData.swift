import CLibDeflate

/// zlib data (RFC 1950: deflate behind a two-byte header, an Adler-32 after it), as PNG images and
/// the `zlib` renditions of asset catalogs hold it, through libdeflate.
public enum ZlibData {
    /// `input` inflated to exactly `size` bytes, or nil when it is not zlib data of that size. With
    /// `orRawDeflate`, data that is not zlib data is tried as bare deflate data too (asset catalogs
    /// hold both).
    public static func inflate(_ input: [UInt8], size: Int, orRawDeflate: Bool = false) -> [UInt8]? {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var output = [UInt8](repeating: 0, count: size)
        for zlibHeader in orRawDeflate ? [true, false] : [true] {
            var actual = 0
            let result = input.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { target in
                    zlibHeader
                        ? libdeflate_zlib_decompress(decompressor, source.baseAddress, source.count, target.baseAddress, size, &actual)
                        : libdeflate_deflate_decompress(decompressor, source.baseAddress, source.count, target.baseAddress, size, &actual)
                }
            }
            if result == LIBDEFLATE_SUCCESS && actual == size { return output }
        }
        return nil
    }

    /// `input` as zlib data, compressed at libdeflate's `level` (0 to 12).
    public static func compress(_ input: [UInt8], level: Int) -> [UInt8] {
        let compressor = libdeflate_alloc_compressor(Int32(level))!
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, input.count)
        var compressed = [UInt8](repeating: 0, count: bound)
        let size = input.withUnsafeBytes { source in
            compressed.withUnsafeMutableBytes { target in
                libdeflate_zlib_compress(compressor, source.baseAddress, source.count, target.baseAddress, bound)
            }
        }
        return Array(compressed[0..<size])
    }
}
