import Foundation
import SystemSupport

/// An append-only byte buffer that writers fill, either kept in memory or flushed to a file
/// descriptor in chunks so memory stays bounded however large the output.
///
/// It owns raw storage rather than a `[UInt8]`, so the many small appends of a plist writer are
/// a capacity check and a copy, without the array's uniqueness checks; being noncopyable, it is
/// freed exactly once.
struct ByteOutput: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    private let fileDescriptor: Int32?
    /// Flushed to the file at this many bytes; in memory, the most it may hold.
    private let flushThreshold: Int
    /// How many bytes went to the file before the current buffer.
    private var flushed = 0
    private let startsWriteback: Bool
    /// How many flushes started the disk write of what they wrote.
    private(set) var writebacksStarted = 0
    /// With `startsWriteback`: flushes the file to disk on another thread as it grows.
    private let backgroundSync: BackgroundSync?

    /// In memory; `flushIfLarge()` fails once more than `limit` bytes have gathered.
    init(capacity: Int = 4096, limit: Int = .max) {
        fileDescriptor = nil
        flushThreshold = limit
        startsWriteback = false
        backgroundSync = nil
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    /// Flushed to `fileDescriptor` (which the caller owns, and keeps open until `flush()` returns
    /// or the output is gone) whenever 256 KiB have gathered. With `startsWriteback`, for a file
    /// that will be flushed to disk at the end, each flush starts the disk write of what it wrote
    /// (`FileIO.startWriteback`) and asks for a flush to disk on another thread (`BackgroundSync`),
    /// so that the final one has little left to wait for.
    init(fileDescriptor: Int32, startsWriteback: Bool) {
        self.fileDescriptor = fileDescriptor
        self.startsWriteback = startsWriteback
        backgroundSync = startsWriteback ? BackgroundSync(fileDescriptor: fileDescriptor) : nil
        flushThreshold = 1 << 18
        capacity = flushThreshold + 4096
        base = .allocate(capacity: capacity)
    }

    deinit {
        backgroundSync?.wait()
        base.deallocate()
    }

    /// How many flushes to disk were started on another thread.
    var backgroundSyncsStarted: Int { backgroundSync?.started ?? 0 }

    /// What has gathered and not been flushed.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The gathered bytes, valid until the next change.
    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Room for `extra` more bytes; returns where they go.
    @inline(__always) mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if count + extra > capacity { grow(count + extra) }
        return base + count
    }

    private mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Lets `body` write up to `maximum` bytes in place; it returns how many it wrote.
    @inline(__always) mutating func write(maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        let start = reserve(maximum)
        count += body(start)
    }

    /// Drops everything after the first `newCount` bytes.
    @inline(__always) mutating func truncate(to newCount: Int) { count = newCount }

    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    /// Appends `byte` `times` times (up to 16 with two 8-byte stores rather than a `memset` call,
    /// since indentation is short and written before every line).
    @inline(__always) mutating func append(_ byte: UInt8, times: Int) {
        guard times > 0 else { return }
        if times <= 16 {
            let start = UnsafeMutableRawPointer(reserve(16))
            let word = UInt64(byte) &* 0x0101_0101_0101_0101
            start.storeBytes(of: word, as: UInt64.self)
            start.storeBytes(of: word, toByteOffset: 8, as: UInt64.self)
        } else {
            reserve(times).update(repeating: byte, count: times)
        }
        count += times
    }

    /// Appends `raw`. Up to 16 bytes (most keys, tags and short strings) are copied with two
    /// overlapping loads and stores, each inside `raw`, rather than a `memmove` call.
    @inline(__always) mutating func append(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        let length = raw.count
        let target = UnsafeMutableRawPointer(reserve(length))
        if length >= 8 && length <= 16 {
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: length - 8, as: UInt64.self)
        } else if length >= 4 && length < 8 {
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
            target.storeBytes(of: head, as: UInt32.self)
            target.storeBytes(of: tail, toByteOffset: length - 4, as: UInt32.self)
        } else {
            target.copyMemory(from: source, byteCount: length)
        }
        count += length
    }

    @inline(__always) mutating func append(_ array: [UInt8]) { array.withUnsafeBytes { append($0) } }

    @inline(__always) mutating func append(_ string: StaticString) {
        append(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 of `string` (labelled, so that string literals pick the `StaticString` overload).
    mutating func append(utf8Of string: String) {
        var string = string
        string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes what has gathered to the file when it is large enough; in memory, fails when more
    /// than the limit has gathered.
    @inline(__always) mutating func flushIfLarge() throws {
        if count >= flushThreshold { try flushLarge() }
    }

    private mutating func flushLarge() throws {
        guard fileDescriptor != nil else {
            guard count > flushThreshold else { return }
            throw Diagnostic.plist(.limitExceeded, "the output grew past \(flushThreshold) bytes in memory")
        }
        try write(syncing: true)
    }

    /// Appends `raw`; a large block headed for a file is written straight from where it is, after
    /// what has gathered, instead of being copied into the buffer first.
    mutating func append(passingThrough raw: UnsafeRawBufferPointer) throws {
        guard fileDescriptor != nil, raw.count >= flushThreshold else {
            append(raw)
            return try flushIfLarge()
        }
        try write(syncing: false)
        try writeOut(raw, syncing: true)
    }

    /// Writes what has gathered to the file, as the last chunk: waits for a flush to disk in
    /// flight rather than starting another (the caller's own flush follows).
    mutating func flush() throws {
        try write(syncing: false)
        backgroundSync?.wait()
    }

    /// `syncing`: ask for a flush to disk in the background afterwards.
    private mutating func write(syncing: Bool) throws {
        guard fileDescriptor != nil else { return }
        try writeOut(buffer, syncing: syncing)
        count = 0
    }

    /// Writes `raw` to the file at the end of what was written before.
    private mutating func writeOut(_ raw: UnsafeRawBufferPointer, syncing: Bool) throws {
        guard let fileDescriptor else { return }
        try FileIO.writeAll(fileDescriptor, raw)
        if startsWriteback {
            FileIO.startWriteback(fileDescriptor, from: flushed)
            writebacksStarted += 1
            if syncing { backgroundSync?.request() }
        }
        flushed += raw.count
    }
}
