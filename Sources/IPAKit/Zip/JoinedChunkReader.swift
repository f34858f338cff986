import CLibZip
import Compression
import Foundation

extension ZipArchiveReader {
    /// How much of a file each piece of a joined stream holds (the packager's chunk size).
    static let joinedChunkSize = IPAPackager.chunkSize

    /// Whether `entry` may be a deflate stream of independently compressed 1 MiB pieces joined by
    /// empty stored blocks (``DeflateChunk``, as `adhocbuild package` writes a large file): such a
    /// stream is inflated a piece at a time by libdeflate, about twice as fast as zlib's streaming.
    static func mayBeJoinedChunks(_ entry: Entry, into capacity: Int) -> Bool {
        entry.compressionMethod == ZIP_CM_DEFLATE && entry.size > Int64(joinedChunkSize) && capacity >= joinedChunkSize
    }

    /// Hands `entry` to `body` a piece at a time, each piece inflated on its own into `buffer`, as
    /// long as the stream is made of joined pieces; returns how many bytes it handed on, and whether
    /// that is the whole entry with its size and CRC checked.
    ///
    /// A piece ends at the first `00 00 FF FF` (an empty stored block's length and its complement)
    /// after which the bytes so far inflate, closed by a final empty stored block, to exactly 1 MiB:
    /// an archive written otherwise (one zlib stream, as Xcode's) has no such point, and a damaged
    /// piece fails to inflate or its CRC, so the caller inflates the rest, or all of it again,
    /// through libzip, which reports the entry's damage as it always did.
    func readJoinedChunks(
        _ entry: Entry, into buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> (handed: Int64, isComplete: Bool) {
        guard let handle = takeHandle() else { return (0, false) }
        defer { returnHandle(handle) }
        guard let file = zip_fopen_index(handle, entry.index, zip_flags_t(ZIP_FL_COMPRESSED)) else { return (0, false) }
        defer { zip_fclose(file) }
        let piece = ZipArchiveReader.joinedChunkSize
        // Room for a stored piece (1 MiB and 5 bytes per 64 KiB block), its end and a closing block.
        let capacity = piece + piece / 64 + 64
        let window = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { window.deallocate() }
        let inflater = Inflater()
        var filled = 0
        var isAtEnd = false
        var handed: Int64 = 0
        var crc: UInt32 = 0
        while handed < entry.size {
            // The window holds the next piece's start; it is topped up from the stream.
            while filled < capacity - 5 && !isAtEnd {
                let count = zip_fread(file, window.baseAddress! + filled, UInt64(capacity - 5 - filled))
                if count < 0 { return (handed, false) }
                if count == 0 { isAtEnd = true }
                filled += Int(count)
            }
            let remaining = Int(entry.size - handed)
            let used: Int
            if remaining <= piece {
                // The last piece is the rest of the stream, closed by its own final block.
                guard isAtEnd, inflater.inflateExactly(UnsafeRawBufferPointer(rebasing: window[0..<filled]), into: buffer, remaining)
                else { return (handed, false) }
                used = filled
            } else {
                guard let end = ZipArchiveReader.pieceEnd(in: window, filled: filled, inflater: inflater, into: buffer) else {
                    return (handed, false)
                }
                used = end
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<min(piece, remaining)])
            crc = Deflater.crc32(crc, bytes)
            try body(bytes)
            handed += Int64(bytes.count)
            // The next piece starts after this one's end: moved to the front of the window.
            filled -= used
            if filled > 0 { memmove(window.baseAddress!, window.baseAddress! + used, filled) }
        }
        return (handed, crc == entry.crc)
    }

    /// Where the piece at the start of `window` ends (just after its `00 00 FF FF`), its 1 MiB
    /// inflated into `buffer`; nil when no end within the window gives exactly that.
    private static func pieceEnd(
        in window: UnsafeMutableRawBufferPointer, filled: Int, inflater: Inflater, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int? {
        let closing: [UInt8] = [0x01, 0x00, 0x00, 0xFF, 0xFF]  // a final empty stored block
        var from = 0
        // A few false starts at most (the marker's bytes inside a piece's data), then it gives up.
        for _ in 0..<8 {
            guard let end = markerEnd(in: UnsafeRawBufferPointer(rebasing: window[0..<filled]), from: from) else { return nil }
            // The closing block goes after the end for the try, over what the window holds there.
            var saved: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &saved) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: window[end..<(end + 5)])) }
            closing.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: window[end..<(end + 5)]).copyMemory(from: $0) }
            let inflated = inflater.inflateExactly(UnsafeRawBufferPointer(rebasing: window[0..<(end + 5)]), into: buffer, joinedChunkSize)
            withUnsafeBytes(of: saved) { UnsafeMutableRawBufferPointer(rebasing: window[end..<(end + 5)]).copyMemory(from: $0) }
            if inflated { return end }
            from = end
        }
        return nil
    }

    /// Where the first `00 00 FF FF` starting at or after `from` ends in `bytes`, or nil.
    static func markerEnd(in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        var index = from + 2
        while index + 1 < bytes.count {
            guard let found = memchr(bytes.baseAddress! + index, 0xFF, bytes.count - 1 - index) else { return nil }
            index = bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
            if bytes[index + 1] == 0xFF && bytes[index - 1] == 0 && bytes[index - 2] == 0 { return index + 2 }
            index += 1
        }
        return nil
    }
}
