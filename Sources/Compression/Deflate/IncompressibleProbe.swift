import Foundation

/// Tells chunks that deflate cannot shrink (compressed images and audio, archives, encrypted or
/// random bytes) from the rest, for a fraction of what deflating them costs.
///
/// libdeflate takes about as long to fail on such data as to compress code: 60-80 MB/s at level 6
/// on this project's 2-core machine, against 3.5 GB/s for writing it as stored blocks. A chunk
/// is taken as incompressible when
/// 1. its first 4 KiB carry at least ``minimumBitsPerByte`` bits per byte, judged by how often
///    each byte value occurs (machine code has about 6, text 4 to 5, compressed data nearly 8),
///    which rules out nearly everything else for the cost of one pass over 4 KiB; and
/// 2. libdeflate's fastest level shrinks none of up to three 64 KiB windows (the start, the middle
///    and the end of the chunk) by 1% or more. Each window spans deflate's 32 KiB reach twice,
///    so repeated stretches inside it are found, however random the bytes look one by one.
///
/// Such a chunk is written as stored blocks: its bytes as they are with 5 bytes of framing per
/// 64 KiB, what level 6 makes of it too. A chunk whose windows are incompressible but whose other
/// parts are not would lose what those parts would have gained; whole files of compressed data
/// are what apps hold.
enum IncompressibleProbe {
    /// How many bytes at the start of a chunk the byte frequencies are taken from.
    static let entropySample = 4096
    /// Random bytes measure about 7.95 on 4 KiB (the sample's own bias); zlib- or PNG-compressed
    /// data the same.
    static let minimumBitsPerByte = 7.8
    /// The size of each window deflated to probe.
    static let window = 64 << 10

    /// The order-0 entropy of `bytes` in bits per byte: 8 for uniformly spread values, 0 for one value.
    static func bitsPerByte(_ bytes: UnsafeRawBufferPointer) -> Double {
        guard !bytes.isEmpty else { return 0 }
        var counts = [Int](repeating: 0, count: 256)
        for byte in bytes { counts[Int(byte)] += 1 }
        let total = Double(bytes.count)
        return counts.reduce(0.0) { sum, count in
            guard count > 0 else { return sum }
            let share = Double(count) / total
            return sum - share * log2(share)
        }
    }

    /// The windows deflated to probe `count` bytes: the whole of a chunk up to two windows long,
    /// otherwise one window at the start, one in the middle and one at the end.
    static func windows(count: Int) -> [Range<Int>] {
        guard count > 2 * window else { return [0..<count] }
        let middle = (count - window) / 2
        return [0..<window, middle..<(middle + window), (count - window)..<count]
    }

    /// Whether deflating `chunk` would not pay, probing with `fastest` (libdeflate's level 1).
    static func isIncompressible(_ chunk: UnsafeRawBufferPointer, fastest: Deflater) -> Bool {
        guard chunk.count >= 1024 else { return false }  // too few bytes to judge; cheap to deflate anyway
        let sample = UnsafeRawBufferPointer(rebasing: chunk[0..<min(chunk.count, entropySample)])
        guard bitsPerByte(sample) >= minimumBitsPerByte else { return false }
        for range in windows(count: chunk.count) {
            let probe = UnsafeRawBufferPointer(rebasing: chunk[range])
            guard let deflated = fastest.deflate(probe) else { return false }
            if deflated.count * 100 < probe.count * 99 { return false }
        }
        return true
    }
}
