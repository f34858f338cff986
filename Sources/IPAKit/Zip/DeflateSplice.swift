import CZlib
import Compression
import Foundation
import SystemSupport

/// A changed file compressed again by reusing most of the deflate stream its entry had in the
/// archive it was unpacked from: re-signing changes an executable's load commands near its start
/// and its signature at its end, and leaves tens of megabytes between them as they were.
///
/// The old stream is inflated once with zlib, which stops at every block boundary (`Z_BLOCK`), and
/// compared with the new file byte for byte. In the longest run of equal bytes, the blocks that
/// start at least 32 KiB into it (so every match they make reaches back only into equal bytes) and
/// end inside it are kept as they are, shifted to a byte boundary and followed by an empty stored
/// block; the new file's bytes before and after them are compressed afresh in chunks, as the
/// packager compresses any file, and joined to them with sync-flush markers. The result inflates
/// to the new file: the kept blocks were just inflated, in the same window, to bytes equal to it.
enum DeflateSplice {
    /// Where the old stream's blocks start: the bit in the stream and the byte of its output.
    struct Boundary: Equatable {
        var bit: Int64
        var offset: Int64
    }

    /// What to reuse: the new file's bytes before `middle.offset`s are compressed afresh, so are
    /// those from `end.offset` on, and the old stream's bits between `start.bit` and `end.bit` are
    /// kept.
    struct Plan: Equatable {
        var start: Boundary
        var end: Boundary
        /// The CRC-32 of the whole new file.
        var crc: UInt32
    }

    /// The reach of a deflate match: the window the kept blocks may look back into.
    static let window: Int64 = 32 << 10
    /// Below this many kept bytes, compressing the file afresh is as quick.
    static let smallestWorthKeeping: Int64 = 4 << 20

    /// Inflates the old stream (`compressedSize` bytes from `offset` in `old`, `size` bytes
    /// inflated) while reading the new file from `file` (`newSize` bytes) and returns what can be
    /// kept, or nil when nothing worth keeping is (or the old stream does not inflate to `size`
    /// bytes). Memory stays at a few buffers of `pieceSize` bytes whatever the sizes.
    static func plan(
        old: any PreparedBytes, offset: Int64, compressedSize: Int64, size: Int64, file: Int32, newSize: Int64,
        pieceSize: Int = 1 << 20
    ) -> Plan? {
        guard let scan = Scan(file: file, newSize: newSize, pieceSize: pieceSize) else { return nil }
        defer { scan.release() }
        guard scan.run(old: old, offset: offset, compressedSize: compressedSize), scan.inflated == size,
            let crc = scan.finishCRC()
        else { return nil }
        return plan(boundaries: scan.boundaries, run: scan.longestRun, newSize: newSize, crc: crc)
    }

    /// The old stream's block boundaries (`compressedSize` bytes from `offset` in `old`, inflating
    /// to `size` bytes), found by inflating it once with zlib; nil when it is not a complete deflate
    /// stream of that size. Taken as an archive is unpacked, so a plan made once the file has changed
    /// (``plan(boundaries:original:size:file:newSize:pieceSize:)``) does not inflate it again.
    static func boundaries(old: any PreparedBytes, offset: Int64, compressedSize: Int64, size: Int64, pieceSize: Int = 1 << 20)
        -> [Boundary]?
    {
        guard let scan = Scan(file: -1, newSize: 0, pieceSize: pieceSize) else { return nil }
        defer { scan.release() }
        guard scan.run(old: old, offset: offset, compressedSize: compressedSize), scan.inflated == size else { return nil }
        return scan.boundaries
    }

    /// ``plan(old:offset:compressedSize:size:file:newSize:pieceSize:)`` with the old stream's
    /// `boundaries` known and the bytes it inflates to read from `original` (`size` bytes, the file
    /// as it was unpacked): the two files are compared piece by piece, nothing is inflated.
    static func plan(boundaries: [Boundary], original: Int32, size: Int64, file: Int32, newSize: Int64, pieceSize: Int = 1 << 20)
        -> Plan?
    {
        let old = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 16)
        let new = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 16)
        defer {
            old.deallocate()
            new.deallocate()
        }
        var runs = RunTracker()
        var crc: UInt32 = 0
        var position: Int64 = 0
        while position < newSize {
            let count = Int(min(Int64(pieceSize), newSize - position))
            guard readAll(file, into: new.baseAddress!, count: count, at: position) == count else { return nil }
            crc = Deflater.crc32(crc, UnsafeRawBufferPointer(rebasing: new[0..<count]))
            let comparable = Int(max(0, min(Int64(count), size - position)))
            if runs.isOpen {
                guard readAll(original, into: old.baseAddress!, count: comparable, at: position) == comparable else { return nil }
                runs.compare(old, new, count: comparable, at: position)
                if comparable < count { runs.end(at: position + Int64(comparable)) }
            }
            position += Int64(count)
        }
        runs.end(at: min(size, newSize))
        return plan(boundaries: boundaries, run: runs.longest, newSize: newSize, crc: crc)
    }

    /// The kept blocks for the longest `run` of equal bytes: those starting at least a window into
    /// it (unless it starts the file) and ending inside it; nil when they hold too little.
    private static func plan(boundaries: [Boundary], run: Range<Int64>, newSize: Int64, crc: UInt32) -> Plan? {
        let earliest = run.lowerBound == 0 ? 0 : run.lowerBound + window
        guard let start = boundaries.first(where: { $0.offset >= earliest }),
            let end = boundaries.last(where: { $0.offset <= run.upperBound && $0.offset < newSize }),
            end.offset - start.offset >= smallestWorthKeeping
        else { return nil }
        return Plan(start: start, end: end, crc: crc)
    }

    /// Reads `count` bytes of the file open as `file` from `offset`, in as many reads as it takes;
    /// returns how many it read (fewer when the file ends sooner), or -1 when a read fails (`errno` says why).
    static func readAll(_ file: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int {
        var done = 0
        while done < count {
            let got = retryingInterrupted { pread(file, buffer + done, count - done, off_t(offset + Int64(done))) }
            if got < 0 { return -1 }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// The runs of equal bytes met while two files are compared in order, and the longest.
    struct RunTracker {
        /// Where the current run started; nil once one of the files has ended.
        private(set) var start: Int64? = 0
        private(set) var longest: Range<Int64> = 0..<0
        var isOpen: Bool { start != nil }

        /// Compares the first `count` bytes of `old` and `new`, which are at `offset` in their files.
        mutating func compare(_ old: UnsafeMutableRawBufferPointer, _ new: UnsafeMutableRawBufferPointer, count: Int, at offset: Int64) {
            guard var from = start, memcmp(old.baseAddress!, new.baseAddress!, count) != 0 else { return }
            for index in 0..<count where old[index] != new[index] {
                close(from, offset + Int64(index))
                from = offset + Int64(index) + 1
            }
            start = from
        }

        /// Ends the current run at `offset` (where one of the files ends).
        mutating func end(at offset: Int64) {
            if let from = start { close(from, offset) }
            start = nil
        }

        private mutating func close(_ from: Int64, _ to: Int64) {
            if to - from > longest.count { longest = from..<to }
        }
    }

    /// How many bytes ``shiftedMiddle(of:offset:bits:pieceSize:_:)`` hands over for `bits`.
    static func shiftedSize(bits: Range<Int64>) -> Int64 { (bits.upperBound - bits.lowerBound + 3 + 7) / 8 + 4 }

    /// The kept bits `bits` of `old` (its stream from `offset`), shifted to start on a byte, then
    /// an empty stored block (three zero bits, zeros to the byte's end, `00 00 FF FF`), handed to
    /// `body` in pieces of about `pieceSize` bytes; returns how many bytes that is in all.
    @discardableResult
    static func shiftedMiddle(
        of old: any PreparedBytes, offset: Int64, bits: Range<Int64>, pieceSize: Int = 1 << 20,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int64 {
        let shift = Int(bits.lowerBound & 7)
        let length = bits.upperBound - bits.lowerBound
        // The kept bits, the stored block's three header bits and the padding, in whole bytes.
        let alignedBytes = (length + 3 + 7) / 8
        let firstByte = offset + bits.lowerBound / 8
        // Input bytes needed: every byte the kept bits touch.
        let inputBytes = (Int64(shift) + length + 7) / 8
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize + 1, alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceSize, alignment: 16)
        defer {
            input.deallocate()
            output.deallocate()
        }
        var produced: Int64 = 0
        while produced < alignedBytes {
            let count = Int(min(Int64(pieceSize), alignedBytes - produced))
            // Output byte j takes input bytes j and j + 1 (shifted); those past the kept bits read as zero.
            let available = Int(max(0, min(Int64(count + 1), inputBytes - produced)))
            try readFully(old, at: firstByte + produced, into: input.baseAddress!, count: available)
            for index in available..<(count + 1) { input[index] = 0 }
            if shift == 0 {
                output.baseAddress!.copyMemory(from: input.baseAddress!, byteCount: count)
            } else {
                for index in 0..<count {
                    output[index] = (input[index] >> UInt8(shift)) | (input[index + 1] << UInt8(8 - shift))
                }
            }
            // Bits past the kept ones are the stored block's header and padding: zero.
            let keptInPiece = length - produced * 8
            if keptInPiece < Int64(count) * 8 {
                let firstClear = Int(max(0, keptInPiece))
                for bit in firstClear..<(count * 8) { output[bit / 8] &= ~UInt8(1 << (bit % 8)) }
            }
            try body(UnsafeRawBufferPointer(rebasing: output[0..<count]))
            produced += Int64(count)
        }
        let marker: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
        try marker.withUnsafeBytes { try body($0) }
        return alignedBytes + 4
    }

    /// Reads exactly `count` bytes from `offset` of `source`, in as many reads as it takes.
    static func readFully(_ source: any PreparedBytes, at offset: Int64, into buffer: UnsafeMutableRawPointer, count: Int) throws {
        var done = 0
        while done < count {
            let got = source.read(at: offset + Int64(done), into: buffer + done, count: count - done)
            guard got > 0 else { throw Diagnostic.ipa("cannot be read again: \(SystemError.describe(errno))") }
            done += got
        }
    }

    /// The old stream inflated and compared with the new file: block boundaries, the longest run
    /// of equal bytes, the new file's CRC.
    private final class Scan {
        let stream: UnsafeMutablePointer<z_stream>
        let input: UnsafeMutableRawBufferPointer
        let output: UnsafeMutableRawBufferPointer
        let newBytes: UnsafeMutableRawBufferPointer
        let file: Int32
        let newSize: Int64
        var boundaries: [Boundary] = [Boundary(bit: 0, offset: 0)]
        /// Bytes inflated so far, and compared.
        var inflated: Int64 = 0
        var runs = RunTracker()
        var longestRun: Range<Int64> { runs.longest }
        var crc: UInt32 = 0
        /// The new file's bytes read (and taken into `crc`) so far.
        var newRead: Int64 = 0

        init?(file: Int32, newSize: Int64, pieceSize: Int) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            guard inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deallocate()
                return nil
            }
            input = .allocate(byteCount: pieceSize, alignment: 16)
            output = .allocate(byteCount: pieceSize, alignment: 16)
            newBytes = .allocate(byteCount: pieceSize, alignment: 16)
            self.file = file
            self.newSize = newSize
        }

        func release() {
            inflateEnd(stream)
            stream.deallocate()
            input.deallocate()
            output.deallocate()
            newBytes.deallocate()
        }

        /// Inflates the whole old stream; false when it is not a complete deflate stream or a read fails.
        func run(old: any PreparedBytes, offset: Int64, compressedSize: Int64) -> Bool {
            var fed: Int64 = 0
            var filled = 0
            while true {
                if stream.pointee.avail_in == 0 && fed < compressedSize {
                    let count = Int(min(Int64(input.count), compressedSize - fed))
                    guard (try? readFully(old, at: offset + fed, into: input.baseAddress!, count: count)) != nil else { return false }
                    stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_in = uInt(count)
                    fed += Int64(count)
                }
                stream.pointee.next_out = (output.baseAddress! + filled).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(output.count - filled)
                let before = (stream.pointee.avail_in, stream.pointee.avail_out)
                let status = inflate(stream, Z_BLOCK)
                filled = output.count - Int(stream.pointee.avail_out)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { return false }
                let ended = status == Z_STREAM_END
                let dataType = stream.pointee.data_type
                if !ended && dataType & 128 != 0 && dataType & 64 == 0 {
                    let boundary = Boundary(
                        bit: Int64(stream.pointee.total_in) * 8 - Int64(dataType & 7), offset: inflated + Int64(filled))
                    if boundary.offset > boundaries[boundaries.count - 1].offset { boundaries.append(boundary) }
                }
                if filled == output.count || ended {
                    guard compare(count: filled) else { return false }
                    filled = 0
                }
                if ended { return fed == compressedSize && stream.pointee.avail_in == 0 }
                // No progress with all the input given: the stream is cut short.
                if before == (stream.pointee.avail_in, stream.pointee.avail_out) && fed == compressedSize { return false }
            }
        }

        /// Compares `count` inflated bytes with the new file's at the same place (when there is one).
        private func compare(count: Int) -> Bool {
            let start = inflated
            inflated += Int64(count)
            guard file >= 0 else { return true }
            let comparable = Int(max(0, min(Int64(count), newSize - start)))
            guard readNew(comparable) else { return false }
            if runs.isOpen {
                runs.compare(output, newBytes, count: comparable, at: start)
                if comparable < count { runs.end(at: start + Int64(comparable)) }
            }
            return true
        }

        /// Reads the new file's next `count` bytes into `newBytes` and takes them into the CRC.
        private func readNew(_ count: Int) -> Bool {
            guard DeflateSplice.readAll(file, into: newBytes.baseAddress!, count: count, at: newRead) == count else { return false }
            crc = Deflater.crc32(crc, UnsafeRawBufferPointer(rebasing: newBytes[0..<count]))
            newRead += Int64(count)
            return true
        }

        /// Ends the last run, takes what the new file holds beyond the old into the CRC, and returns it.
        func finishCRC() -> UInt32? {
            runs.end(at: inflated)
            while newRead < newSize {
                guard readNew(Int(min(Int64(newBytes.count), newSize - newRead))) else { return nil }
            }
            return crc
        }
    }
}
