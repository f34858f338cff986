/// Which compressor deflates a chunk at a given `zip` level, chosen from what the chunk holds,
/// so that the ipa comes out no larger than `zip` makes it while most bytes still go through
/// libdeflate's faster compressor.
///
/// libdeflate's level n is not zlib's (or Info-ZIP's) level n. Measured against zlib on app-like
/// content (bench/gen_shapes.py's trees, and real binaries and text from the toolchain):
/// - binary data (machine code, nibs, images) comes out within ±1% of zlib at the same level;
/// - text of 2 KiB or more comes out 1-4% larger at libdeflate's levels 5 and 6, and 0.3-2%
///   smaller one level up;
/// - text under 2 KiB comes out 1.5-2.5% larger at libdeflate's levels 4 to 9, whatever the level.
/// So text under 2 KiB goes to zlib at the level asked for (costs little: such files are small),
/// larger text at levels 5 and 6 to libdeflate one level up, and everything else to libdeflate
/// at the level asked for. Levels 1-3 always use libdeflate, which beats zlib there on all of it.
enum DeflateMethod: Hashable {
    case libdeflate(level: Int)
    case zlib(level: Int)

    /// Chunks of text shorter than this go to zlib (at levels 4 and up).
    static let smallTextLimit = 2048

    /// The method for a chunk of `size` bytes at `level`, `isText` as ``looksLikeText(_:)`` says.
    /// libdeflate's levels 10-12 (beyond zip's, and beyond zlib's 9) always stay with libdeflate.
    static func choose(level: Int, size: Int, isText: Bool) -> DeflateMethod {
        guard isText, (4...9).contains(level) else { return .libdeflate(level: level) }
        if size < smallTextLimit { return .zlib(level: level) }
        return .libdeflate(level: level == 5 || level == 6 ? level + 1 : level)
    }

    /// Whether `bytes` look like text: in no 4 KiB stretch is more than one byte in 128 a control
    /// character that text does not hold (0-6, 14-25, 28-31: the ones zlib's text detection rules
    /// out). Bytes from 128 up count as text, so UTF-8 does. Binary data is told apart within its
    /// first 4 KiB, so only text is read to the end.
    static func looksLikeText(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return false }
        let stretch = 4096
        var start = 0
        while start < bytes.count {
            let end = min(start + stretch, bytes.count)
            var found: UInt32 = 0
            var index = start
            // Eight bytes at a time; only words holding a byte under 32 are looked at byte by byte.
            while index + 8 <= end {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080 != 0 {
                    for offset in index..<(index + 8) { found &+= controlBit(bytes[offset]) }
                }
                index += 8
            }
            for offset in index..<end { found &+= controlBit(bytes[offset]) }
            if Int(found) * 128 > end - start { return false }
            start = end
        }
        return true
    }

    /// 1 for the control characters that text does not hold (0-6, 14-25 and 28-31), 0 otherwise.
    @inline(__always) private static func controlBit(_ byte: UInt8) -> UInt32 {
        byte < 32 ? (0xF3FF_C07F >> UInt32(byte)) & 1 : 0
    }
}
