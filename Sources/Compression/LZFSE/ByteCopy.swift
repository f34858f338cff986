/// The copies both decoders make into their output: literals from a source, and matches from earlier
/// output, with LZ semantics (a match may overlap the bytes it writes, repeating them).
///
/// The fast forms write whole 8-byte words and so may write up to ``slack`` bytes past the end
/// they are given; every output buffer is allocated with that much room past its last byte.
enum ByteCopy {
    /// Bytes a wide copy may write past the requested end (and read past a padded source's end).
    static let slack = 32

    /// Loads 8 bytes, little-endian, from any alignment.
    @inline(__always)
    static func load64(_ pointer: UnsafeRawPointer) -> UInt64 {
        UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
    }

    /// Loads 4 bytes, little-endian, from any alignment.
    @inline(__always)
    static func load32(_ pointer: UnsafeRawPointer) -> UInt32 {
        UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self))
    }

    /// Loads 2 bytes, little-endian, from any alignment.
    @inline(__always)
    static func load16(_ pointer: UnsafeRawPointer) -> UInt16 {
        UInt16(littleEndian: pointer.loadUnaligned(as: UInt16.self))
    }

    /// Copies `count` bytes from `source` to `target` in 16-byte steps: both must have `slack`
    /// readable (source) and writable (target) bytes past `count`, and must not overlap.
    @inline(__always)
    static func wideCopy(_ target: UnsafeMutablePointer<UInt8>, _ source: UnsafePointer<UInt8>, _ count: Int) {
        var done = 0
        repeat {
            let from = UnsafeRawPointer(source + done)
            let to = UnsafeMutableRawPointer(target + done)
            to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (to + 8).storeBytes(of: (from + 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
            done &+= 16
        } while done < count
    }

    /// Copies `count` bytes from `source` to `target` one at a time (near the end of a buffer).
    @inline(__always)
    static func exactCopy(_ target: UnsafeMutablePointer<UInt8>, _ source: UnsafePointer<UInt8>, _ count: Int) {
        var index = 0
        while index < count {
            target[index] = source[index]
            index &+= 1
        }
    }

    /// Writes the match of `length` bytes at `target`, each the byte `distance` before it, so a
    /// distance shorter than the length repeats the last `distance` bytes. The caller has checked
    /// that `distance` bytes precede `target` and that `target` has `length + slack` writable bytes.
    @inline(__always)
    static func match(_ target: UnsafeMutablePointer<UInt8>, length: Int, distance: Int) {
        if distance >= 8 {
            // Each word read lies wholly before the word written, so it is already final.
            var done = 0
            repeat {
                let word = UnsafeRawPointer(target + done - distance).loadUnaligned(as: UInt64.self)
                UnsafeMutableRawPointer(target + done).storeBytes(of: word, as: UInt64.self)
                done &+= 8
            } while done < length
            return
        }
        // A short distance repeats a pattern of `distance` bytes; any multiple of it is as good a
        // distance once the first period is written, so widen it to at least 8 and copy words.
        let period = distance * ((8 + distance - 1) / distance)
        let head = min(length, period)
        var index = 0
        while index < head {
            target[index] = target[index - distance]
            index &+= 1
        }
        while index < length {
            let word = UnsafeRawPointer(target + index - period).loadUnaligned(as: UInt64.self)
            UnsafeMutableRawPointer(target + index).storeBytes(of: word, as: UInt64.self)
            index &+= 8
        }
    }
}
