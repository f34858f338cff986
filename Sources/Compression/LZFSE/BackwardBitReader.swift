/// Reads an FSE bit stream from its last byte towards its first, the order its encoder wrote it.
///
/// The encoder pushed bits into a little-endian word and flushed whole bytes forwards, so the last
/// bits written sit at the end of the payload. The reader keeps up to 63 unread bits in
/// `accumulator` (the most recently written at the top), takes bits from the top, and tops the
/// accumulator up a byte at a time from below `position`, never below `floor`.
struct BackwardBitReader {
    private let base: UnsafePointer<UInt8>
    /// Bytes at and after this index have been loaded.
    private var position: Int
    /// The lowest index the reader may load.
    private let floor: Int
    private var accumulator: UInt64
    /// How many low bits of `accumulator` are unread.
    private var bitCount: Int

    /// Starts at `end` in `base`, where the encoder left `finalBits` (in -7...0) of its last word:
    /// the stream's last byte holds `8 + finalBits` bits, or all 8 when `finalBits` is 0.
    /// `floor` must be at least 8: a refill reads the 8 bytes before its position.
    init(base: UnsafePointer<UInt8>, end: Int, floor: Int, finalBits: Int) throws(StreamFault) {
        guard (-7...0).contains(finalBits) else { throw StreamFault("bit count \(finalBits) of the stream's last byte is not in -7...0") }
        let bytes = finalBits == 0 ? 7 : 8
        guard floor >= 8, end - bytes >= floor else { throw StreamFault("bit stream shorter than its first word") }
        self.base = base
        self.floor = floor
        position = end - bytes
        bitCount = finalBits == 0 ? 56 : 64 + finalBits
        let word = ByteCopy.load64(UnsafeRawPointer(base + end - 8)) &>> UInt64(64 - 8 * bytes)
        accumulator = word & ((1 &<< UInt64(bitCount)) &- 1)
    }

    /// Loads whole bytes until at least 56 bits are unread; fails when that would go below `floor`.
    @inline(__always)
    mutating func refill() throws(StreamFault) {
        let bits = (63 &- bitCount) & ~7
        guard bits > 0 else { return }
        let bytes = bits &>> 3
        guard position &- bytes >= floor else { throw StreamFault("bit stream runs past the start of its payload") }
        // The 8 bytes ending at `position` hold the new bytes in their top `bytes` bytes.
        let word = ByteCopy.load64(UnsafeRawPointer(base + (position &- 8)))
        position &-= bytes
        accumulator = (accumulator &<< UInt64(bits)) | (word &>> UInt64(64 &- bits))
        bitCount &+= bits
    }

    /// Takes the next `count` bits (at most what is unread: callers refill first, and take at most
    /// 56 bits between refills).
    @inline(__always)
    mutating func take(_ count: Int) -> UInt64 {
        bitCount &-= count
        let value = accumulator &>> UInt64(bitCount)
        accumulator &= (1 &<< UInt64(bitCount)) &- 1
        return value
    }
}
