import CLibZip
import Foundation

extension ZipArchiveReader {
    /// Reads `entry` in pieces into `buffer` (reused for every piece), handing each piece to `body`,
    /// so an entry of any size passes through at most `buffer.count` bytes of memory.
    ///
    /// The size the directory declares is checked as the pieces arrive, and libzip checks the CRC
    /// as the last bytes are read; a damaged, truncated or overlong entry is a one-line error naming
    /// it. Each libzip call holds the reader's lock, `body` runs outside it, so several threads may
    /// read entries at once and hash while another inflates.
    public func readChunks(
        _ entry: Entry, into buffer: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw IPAError("cannot be read into an empty buffer", file: path, entry: entry.name)
        }
        recordChunkBuffer(buffer.count)
        lock.lock()
        let opened = zip_fopen_index(archive, entry.index, 0)
        let openError = opened == nil ? String(cString: zip_strerror(archive)) : ""
        lock.unlock()
        guard let file = opened else { throw IPAError("cannot be read: \(openError)", file: path, entry: entry.name) }
        defer {
            lock.lock()
            zip_fclose(file)
            lock.unlock()
        }
        var total: Int64 = 0
        while true {
            lock.lock()
            let count = zip_fread(file, base, UInt64(buffer.count))
            let readError = count < 0 ? String(cString: zip_file_strerror(file)) : ""
            lock.unlock()
            if count < 0 { throw IPAError("is damaged: \(readError)", file: path, entry: entry.name) }
            if count == 0 { break }
            total += count
            if total > entry.size {
                throw IPAError("holds more data than the \(entry.size) bytes it declares", file: path, entry: entry.name)
            }
            try body(UnsafeRawBufferPointer(start: base, count: Int(count)))
        }
        guard total == entry.size else {
            throw IPAError("holds \(total) bytes but declares \(entry.size) (truncated?)", file: path, entry: entry.name)
        }
    }

    /// Reads `entry` in pieces of at most `chunkSize` bytes through one buffer of that size (or of
    /// the entry's size, when smaller), handing each piece to `body`. See ``readChunks(_:into:_:)``.
    public func readChunks(_ entry: Entry, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let size = max(1, min(chunkSize, Int(clamping: entry.size)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        try readChunks(entry, into: buffer, body)
    }

    /// The largest buffer a chunked read of this reader has used so far, in bytes (0 before any):
    /// what bounds the memory entries take while streamed, whatever their size.
    public var largestChunkBuffer: Int { chunkStatistics.value.largest }

    /// How many chunked reads this reader has started.
    public var chunkedReads: Int { chunkStatistics.value.reads }

    private func recordChunkBuffer(_ size: Int) {
        chunkStatistics.withLock {
            $0.largest = max($0.largest, size)
            $0.reads += 1
        }
    }
}
