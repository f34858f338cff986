import CLinux
import Compression
import Foundation
import SystemSupport

/// Writes an archive itself, framed byte for byte as ``ZipArchiveWriter`` (libzip) frames the
/// same entries: files stored as they are read (`--level 0`), and files deflated beforehand
/// copied from the ``Spool`` the compressors filled.
///
/// Storing is bound by copying, and libzip copies through 8 KiB buffers and computes every
/// stored entry's CRC itself with zlib's slower `crc32`, which made `--level 0` run at about half
/// the speed of merely reading the tree. Here files are read straight into a large output
/// buffer, their CRC taken there with libdeflate, and the buffer handed to a writer thread
/// while the next one fills, so reading and writing overlap on two cores. A local header
/// goes out before its data with the CRC still unknown; the CRC is filled in afterwards, in
/// the buffer when the header is still there and by a small positioned write otherwise.
///
/// Deflated entries arrive with their sizes and CRC known, so their headers are complete at
/// once and their data is read from the spool into the same buffers. libzip spent about 10 µs
/// an entry on the same copy (a callback source read in pieces), a third of a second on an
/// app of 20,000 small files.
///
/// It writes only what needs no ZIP64 (see ``fits(_:prepared:)``); larger archives go through libzip.
/// The packager reopens every archive with libzip to check it, whichever wrote it.
final class DirectArchiveWriter: ArchiveWriting {
    let path: String
    private let fileDescriptor: Int32
    private let output: OutputPipeline
    /// The buffer being filled, and the archive offset of its first byte.
    private var buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    private var bufferOffset: Int64 = 0
    private var centralDirectory: [UInt8] = []
    private var entryCount = 0
    private var finished = false
    /// Called with the number of file bytes copied so far.
    var progress: ((Int64) -> Void)?
    private var copied: Int64 = 0

    static let defaultBufferSize = 1 << 20

    /// Whether `entries` fit in an archive without ZIP64: under 65,535 entries and every
    /// offset and size under 4 GiB. `prepared` gives the deflated files' data (by entry index);
    /// the others are stored.
    static func fits(_ entries: [BundleTree.Entry], prepared: [Int: PreparedEntry] = [:]) -> Bool {
        entries.count < 0xFFFF && entries.allSatisfy { $0.size < 0xFFFF_FFFF }
            && archiveSize(entries, prepared: prepared) < 0xFFFF_FFFF
    }

    /// The size of the archive this writer makes of `entries` (when they do not change meanwhile),
    /// the files in `prepared` (by entry index) taking their deflated size.
    static func archiveSize(_ entries: [BundleTree.Entry], prepared: [Int: PreparedEntry] = [:]) -> Int64 {
        var total: Int64 = 22
        for (index, entry) in entries.enumerated() {
            let name = Int64(entry.archivePath.utf8.count)
            let data: Int64
            switch entry.kind {
            case .directory: data = 0
            case .file: data = prepared[index]?.compressedSize ?? entry.size
            case .symlink(let target): data = Int64(target.utf8.count)
            }
            total += 30 + name + data + 46 + name
        }
        return total
    }

    /// Asks the file system for `bytes` of space up front (without changing the file's size),
    /// so that the writes fill space already allocated instead of reserving it page by page.
    /// Only a hint: where it is not supported, writing allocates as it goes.
    func reserve(_ bytes: Int64) {
        _ = adhocbuild_reserve_space(fileDescriptor, Int(bytes))
    }

    /// `bufferSize` is how many bytes go to each write (small ones only in tests).
    init(creating path: String, bufferSize: Int = DirectArchiveWriter.defaultBufferSize) throws {
        self.path = path
        fileDescriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fileDescriptor >= 0 else { throw Diagnostic.system("cannot be created", file: path) }
        output = OutputPipeline(fileDescriptor: fileDescriptor, bufferSize: max(1, bufferSize), path: path)
        buffer = output.takeBuffer()
    }

    deinit {
        output.abandon()
        Foundation.close(fileDescriptor)
    }

    /// Adds a directory entry (`name` ends with `/`).
    func addDirectory(_ name: String, permissions: UInt32, dosTime: DOSTime) throws {
        try addEntry(name, kind: .directory, permissions: permissions, dosTime: dosTime, sizes: .stored(0)) { _ in 0 }
    }

    /// Adds a symbolic link, stored as its target path.
    func addSymlink(_ name: String, target: String, dosTime: DOSTime) throws {
        let bytes = Array(target.utf8)
        try addEntry(name, kind: .symlink, permissions: 0o777, dosTime: dosTime, sizes: .stored(Int64(bytes.count))) { writer in
            try bytes.withUnsafeBytes { try writer.append($0) }
            return bytes.withUnsafeBytes { Deflater.crc32(0, $0) }
        }
    }

    /// Adds the `size` bytes of `file`, stored.
    func addStoredFile(_ name: String, from file: String, size: Int64, permissions: UInt32, dosTime: DOSTime) throws {
        try addStoredFile(name, from: file, opened: -1, size: size, permissions: permissions, dosTime: dosTime)
    }

    /// Adds the `size` bytes of `file`, stored; read from `opened` when it is an open descriptor
    /// of that file (which is closed here), opened here otherwise.
    func addStoredFile(
        _ name: String, from file: String, opened: Int32, size: Int64, permissions: UInt32, dosTime: DOSTime
    ) throws {
        var input = opened
        defer { if input >= 0 { Foundation.close(input) } }
        try addEntry(name, kind: .file, permissions: permissions, dosTime: dosTime, sizes: .stored(size)) { writer in
            guard size > 0 else { return 0 }
            if input < 0 { input = open(file, O_RDONLY | O_CLOEXEC) }
            guard input >= 0 else { throw Diagnostic.system("cannot be read", file: file) }
            return try writer.copy(input, size: size, file: file)
        }
    }

    /// Adds a file whose data was prepared beforehand (deflated, or stored when deflating did
    /// not pay) and sits in `spool`.
    func addPrepared(_ name: String, entry: PreparedEntry, spool: any PreparedBytes, permissions: UInt32, dosTime: DOSTime) throws {
        let sizes = EntrySizes(
            method: entry.isDeflated ? 8 : 0, crc: entry.crc, compressed: entry.compressedSize,
            uncompressed: entry.uncompressedSize)
        try addEntry(name, kind: .file, permissions: permissions, dosTime: dosTime, sizes: sizes) { writer in
            for segment in entry.segments where segment.length > 0 {
                try writer.copy(from: spool, at: segment.offset, count: segment.length)
            }
            return entry.crc
        }
    }

    /// Writes the central directory and the end record, and waits for every byte to be written.
    func close() throws {
        guard !finished else { return }
        finished = true
        let directoryOffset = bufferOffset + Int64(filled)
        var end = ZipRecord()
        end.uint32(0x0605_4B50)
        end.uint16(0)  // this disk
        end.uint16(0)  // the disk where the central directory starts
        end.uint16(UInt16(entryCount))
        end.uint16(UInt16(entryCount))
        end.uint32(UInt32(centralDirectory.count))
        end.uint32(UInt32(directoryOffset))
        end.uint16(0)  // comment length
        try centralDirectory.withUnsafeBytes { try append($0) }
        try end.bytes.withUnsafeBytes { try append($0) }
        try flush()
        try output.waitForWrites()
    }

    /// Abandons the archive (the caller removes the file).
    func discard() {
        finished = true
        output.abandon()
    }

    /// How an entry's data is kept: the method (0 stored, 8 deflated), both sizes, and the CRC
    /// when it is known before the data is written.
    private struct EntrySizes {
        var method: UInt16
        var crc: UInt32?
        var compressed: Int64
        var uncompressed: Int64

        static func stored(_ size: Int64) -> EntrySizes {
            EntrySizes(method: 0, crc: nil, compressed: size, uncompressed: size)
        }
    }

    private func addEntry(
        _ name: String, kind: ZipArchiveWriter.Kind, permissions: UInt32, dosTime: DOSTime,
        sizes: EntrySizes, data: (DirectArchiveWriter) throws -> UInt32
    ) throws {
        let nameBytes = Array(name.utf8)
        let headerOffset = bufferOffset + Int64(filled)
        // libzip asks for version 2.0 for folders and deflated data and 1.0 for stored data,
        // and flags a name UTF-8 only when it is not plain ASCII.
        let versionNeeded: UInt16 = name.hasSuffix("/") || sizes.method == 8 ? 20 : 10
        let isASCII = nameBytes.allSatisfy { ($0 > 31 && $0 < 128) || $0 == 9 || $0 == 10 || $0 == 13 }
        // From "version needed" to "extra field length", a local header and its central record agree.
        func sharedFields(_ record: inout ZipRecord, crc: UInt32) {
            record.uint16(versionNeeded)
            record.uint16(isASCII ? 0 : 0x0800)
            record.uint16(sizes.method)
            record.uint16(dosTime.time)
            record.uint16(dosTime.date)
            record.uint32(crc)
            record.uint32(UInt32(sizes.compressed))
            record.uint32(UInt32(sizes.uncompressed))
            record.uint16(UInt16(nameBytes.count))
            record.uint16(0)  // extra field length
        }
        var local = ZipRecord(capacity: 30 + nameBytes.count)
        local.uint32(0x0403_4B50)
        sharedFields(&local, crc: sizes.crc ?? 0)  // an unknown CRC is filled in once the data has been read
        local.bytes += nameBytes
        try local.bytes.withUnsafeBytes { try append($0) }
        let crc = try data(self)
        if sizes.crc == nil { try patchCRC(crc, atHeader: headerOffset) }

        var central = ZipRecord(capacity: 46 + nameBytes.count)
        central.uint32(0x0201_4B50)
        central.uint16(0x033F)  // made by: Unix, version 6.3 (as libzip)
        sharedFields(&central, crc: crc)
        central.uint16(0)  // comment length
        central.uint16(0)  // disk
        central.uint16(0)  // internal attributes
        central.uint32(kind.externalAttributes(permissions: permissions))
        central.uint32(UInt32(headerOffset))
        central.bytes += nameBytes
        centralDirectory += central.bytes
        entryCount += 1
    }

    /// The CRC sits 14 bytes into a local header: its bytes still in the buffer are set there,
    /// the ones already handed over are rewritten after them.
    private func patchCRC(_ crc: UInt32, atHeader headerOffset: Int64) throws {
        let position = headerOffset + 14
        let value = [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)]
        let handedOver = Int(max(0, min(4, bufferOffset - position)))
        if handedOver > 0 { try output.patch(Array(value[0..<handedOver]), at: position) }
        for index in handedOver..<4 { buffer[Int(position - bufferOffset) + index] = value[index] }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            if filled == buffer.count { try flush() }
            let count = min(bytes.count - done, buffer.count - filled)
            (buffer.baseAddress! + filled).copyMemory(from: bytes.baseAddress! + done, byteCount: count)
            filled += count
            done += count
        }
    }

    /// Reads `size` bytes from `input` (`file`) straight into the output buffer and returns their CRC.
    private func copy(_ input: Int32, size: Int64, file: String) throws -> UInt32 {
        var crc: UInt32 = 0
        var remaining = size
        while remaining > 0 {
            if filled == buffer.count { try flush() }
            let wanted = Int(min(remaining, Int64(buffer.count - filled)))
            let got = retryingInterrupted { read(input, buffer.baseAddress! + filled, wanted) }
            guard got > 0 else {
                if got < 0 { throw Diagnostic.system("cannot be read", file: file) }
                throw Diagnostic.ipa("changed while it was being read (shorter than \(size) bytes)", file: file)
            }
            crc = Deflater.crc32(crc, UnsafeRawBufferPointer(start: buffer.baseAddress! + filled, count: got))
            filled += got
            remaining -= Int64(got)
            copied += Int64(got)
            progress?(copied)
        }
        return crc
    }

    /// Reads `count` bytes of `spool` from `offset` on straight into the output buffer.
    private func copy(from spool: any PreparedBytes, at offset: Int64, count: Int) throws {
        var done = 0
        while done < count {
            if filled == buffer.count { try flush() }
            let wanted = min(count - done, buffer.count - filled)
            let got = spool.read(at: offset + Int64(done), into: buffer.baseAddress! + filled, count: wanted)
            guard got > 0 else { throw Diagnostic.system("cannot read a temporary file", code: got < 0 ? errno : EIO) }
            filled += got
            done += got
        }
    }

    /// Hands the filled buffer to the writer thread and continues in another one.
    private func flush() throws {
        guard filled > 0 else { return }
        let full = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<filled])
        try output.write(full, at: bufferOffset, whole: buffer)
        bufferOffset += Int64(filled)
        filled = 0
        buffer = output.takeBuffer()
    }
}

/// Little-endian fields of a zip record.
struct ZipRecord {
    var bytes: [UInt8] = []

    init() {}

    /// A record with room for `capacity` bytes, so it is built without growing.
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func uint16(_ value: UInt16) {
        bytes.append(UInt8(value & 0xFF))
        bytes.append(UInt8(value >> 8))
    }

    mutating func uint32(_ value: UInt32) {
        uint16(UInt16(value & 0xFFFF))
        uint16(UInt16(value >> 16))
    }
}

/// Writes buffers at given offsets on a thread of its own, in the order they are handed over,
/// with two buffers in use so one fills while the other is written.
// @unchecked Sendable: the pool and the failure are guarded by `lock`; the descriptor is only
// written through by the pipeline's serial worker.
private final class OutputPipeline: @unchecked Sendable {
    private let fileDescriptor: Int32
    private let path: String
    /// The aligned buffers' writes, around the page cache while the disk keeps up (the writer's own).
    private let uncached: UncachedWrites?
    private let writer = SerialWorker(label: "adhocbuild.stored-output")
    /// Guards the pool and the failure; signalled when a buffer comes back.
    private let lock = NSCondition()
    private var pool: [UnsafeMutableRawBufferPointer]
    private var failure: Int32?
    private let allocated: [UnsafeMutableRawBufferPointer]

    init(fileDescriptor: Int32, bufferSize: Int, path: String) {
        self.fileDescriptor = fileDescriptor
        self.path = path
        uncached = bufferSize % UncachedWrites.alignment == 0 ? UncachedWrites(path: path) : nil
        allocated = (0..<2).map { _ in
            UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: UncachedWrites.alignment)
        }
        pool = allocated
    }

    deinit { for buffer in allocated { buffer.deallocate() } }

    /// An empty buffer, once one is free.
    func takeBuffer() -> UnsafeMutableRawBufferPointer {
        lock.lock()
        defer { lock.unlock() }
        while pool.isEmpty { lock.wait() }
        return pool.removeLast()
    }

    private func returnBuffer(_ buffer: UnsafeMutableRawBufferPointer) {
        lock.lock()
        pool.append(buffer)
        lock.signal()
        lock.unlock()
    }

    /// Writes `bytes` (the start of `whole`) at `offset`, then frees `whole`.
    func write(_ bytes: UnsafeMutableRawBufferPointer, at offset: Int64, whole: UnsafeMutableRawBufferPointer) throws {
        try check()
        // The buffer is the writer thread's until it is returned to the pool.
        let handedOver = HandedOverBuffer(bytes: bytes, whole: whole)
        writer.run { [self] in
            defer { returnBuffer(handedOver.whole) }
            writeAll(UnsafeRawBufferPointer(handedOver.bytes), at: offset)
        }
    }

    /// Overwrites a few bytes already handed over (ordered after them).
    func patch(_ bytes: [UInt8], at offset: Int64) throws {
        try check()
        writer.run { [self] in
            bytes.withUnsafeBytes { writeAll($0, at: offset) }
        }
    }

    /// Waits for every write; throws the first failure.
    func waitForWrites() throws {
        writer.wait()
        try check()
    }

    /// Waits for every write, ignoring failures (when abandoning the archive).
    func abandon() {
        writer.wait()
    }

    private func check() throws {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw Diagnostic.system("cannot be written", file: path, code: failure) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        let done = uncached?.write(bytes, at: offset) ?? 0
        guard done < bytes.count else { return }
        let code = positionedWriteAll(fileDescriptor, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + Int64(done))
        guard code != 0 else { return }
        lock.lock()
        if failure == nil { failure = code }
        lock.unlock()
    }
}

/// A buffer passed to the writer thread, which alone touches it until it is back in the pool.
// @unchecked Sendable: ownership of the memory passes to the writer thread with the value.
private struct HandedOverBuffer: @unchecked Sendable {
    var bytes: UnsafeMutableRawBufferPointer
    var whole: UnsafeMutableRawBufferPointer
}
