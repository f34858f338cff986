import Compression
import Foundation
import SystemSupport

extension IPAPackager {
    /// Files at least this large that changed since they were unpacked are spliced from their old
    /// stream when they can be (smaller ones are compressed afresh: there is little to keep).
    static let smallestSpliced: Int64 = 8 << 20

    /// `entry`'s file compressed by keeping the blocks of its old stream in `carried` that still
    /// hold its bytes (``DeflateSplice``), the rest deflated afresh in chunks into `spool`; nil when
    /// nothing worth keeping is found, and the file is compressed as any other.
    func spliced(_ entry: BundleTree.Entry, from carried: CarriedEntries, spool: Spool) throws -> PreparedEntry? {
        guard options.level > 0, entry.size >= IPAPackager.smallestSpliced,
            let old = carried.previousStream(for: entry.sourcePath), old.size >= IPAPackager.smallestSpliced
        else { return nil }
        let path = entry.sourcePath
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw Diagnostic.system("cannot be read", file: path) }
        defer { close(file) }
        // Surveyed as it was unpacked: the two files are compared, the old stream is not inflated again.
        let planned =
            carried.survey(for: path).map { survey in
                DeflateSplice.plan(
                    boundaries: survey.boundaries, original: survey.original, size: old.size, file: file, newSize: entry.size)
            }
            ?? DeflateSplice.plan(
                old: carried, offset: old.offset, compressedSize: old.compressedSize, size: old.size, file: file,
                newSize: entry.size)
        guard let plan = planned else { return nil }
        var result = PreparedEntry()
        result.uncompressedSize = entry.size
        result.crc = plan.crc
        var sizes: [Int] = []
        let deflater = ChunkDeflater(level: options.level)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: IPAPackager.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        /// Deflates the file's bytes in `range` in chunks, each one continuable unless it ends the file.
        func deflate(_ range: Range<Int64>) throws -> UInt32 {
            var crc: UInt32 = 0
            var position = range.lowerBound
            while position < range.upperBound {
                let count = Int(min(Int64(IPAPackager.chunkSize), range.upperBound - position))
                try readExactly(file, into: buffer.baseAddress!, count: count, at: position, path: path)
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                crc = Deflater.crc32(crc, bytes)
                guard var compressed = deflater.deflate(bytes) else {
                    throw Diagnostic.ipa("could not be compressed (the compressor failed on bytes from \(position))", file: path)
                }
                position += Int64(count)
                if position < entry.size { compressed = try DeflateChunk.makeContinuable(compressed) }
                let offset = try compressed.withUnsafeBytes { try spool.append($0) }
                result.segments.append((offset, compressed.count))
                sizes.append(count)
            }
            return crc
        }
        _ = try deflate(0..<plan.start.offset)
        // The kept blocks, written as one segment of the spool's file.
        let bits = plan.start.bit..<plan.end.bit
        let middleStart = spool.reserve(DeflateSplice.shiftedSize(bits: bits))
        var written: Int64 = 0
        var storedCRC: UInt32 = 0
        try DeflateSplice.shiftedMiddle(of: carried, offset: old.offset, bits: bits) { piece in
            try spool.write(piece, at: middleStart + written)
            storedCRC = Deflater.crc32(storedCRC, piece)
            written += Int64(piece.count)
        }
        let keptSize = Int(plan.end.offset - plan.start.offset)
        var contentCRC: UInt32 = 0
        var position = plan.start.offset
        while position < plan.end.offset {
            let count = Int(min(Int64(IPAPackager.chunkSize), plan.end.offset - position))
            try readExactly(file, into: buffer.baseAddress!, count: count, at: position, path: path)
            contentCRC = Deflater.crc32(contentCRC, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
        }
        result.kept = ZipArchiveVerifier.KeptSegment(index: result.segments.count, storedCRC: storedCRC, contentCRC: contentCRC)
        result.segments.append((middleStart, Int(written)))
        sizes.append(keptSize)
        _ = try deflate(plan.end.offset..<entry.size)
        result.segmentSizes = sizes
        return result
    }

    /// Reads exactly `count` bytes of `file` from `offset`; a file that ends sooner changed while it was read.
    private func readExactly(_ file: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64, path: String) throws {
        let got = DeflateSplice.readAll(file, into: buffer, count: count, at: offset)
        if got < 0 { throw Diagnostic.system("cannot be read", file: path) }
        if got < count {
            throw Diagnostic.ipa("changed while it was being read (shorter than \(offset + Int64(count)) bytes)", file: path)
        }
    }
}
