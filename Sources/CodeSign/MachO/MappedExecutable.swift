import Foundation
import SystemSupport

/// An executable mapped read-only into memory, so its code pages are hashed in place: nothing is
/// copied, and each range is let go (``release(_:)``) once hashed, so the pages the process holds
/// stay few whatever the executable's size.
///
/// A file on disk is mapped where it is; an ipa entry is first inflated in pieces into an unlinked
/// temporary file (``spooling(_:)``), which the map then holds.
// @unchecked Sendable: the map and the descriptor are set once in init and only read afterwards
// (loads, madvise); the hashing jobs share it read-only until it is unmapped in deinit.
final class MappedExecutable: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    private let descriptor: Int32

    /// Maps the file at `path`; errors are one line (the caller names the file).
    convenience init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))") }
        try self.init(descriptor: fd)
    }

    /// Inflates an entry through `readChunks` into an unlinked temporary file and maps that.
    static func spooling(_ readChunks: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws -> MappedExecutable {
        var template = Array((NSTemporaryDirectory() + "/adhocbuild-executable-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be unpacked: \(SystemError.describe(errno))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        do {
            try readChunks { piece in
                var done = 0
                while done < piece.count {
                    let written = write(fd, piece.baseAddress! + done, piece.count - done)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { throw Diagnostic.codeSign(.unreadable, "cannot be unpacked: \(SystemError.describe(errno))") }
                    done += written
                }
            }
        } catch {
            close(fd)
            throw error
        }
        return try MappedExecutable(descriptor: fd)
    }

    /// Takes `fd` (closed on failure and in deinit).
    private init(descriptor fd: Int32) throws {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))")
        }
        descriptor = fd
        guard info.st_size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let address = mmap(nil, Int(info.st_size), PROT_READ, MAP_SHARED, fd, 0), address != MAP_FAILED else {
            close(fd)
            throw Diagnostic.codeSign(.unreadable, "cannot be mapped: \(SystemError.describe(errno))")
        }
        bytes = UnsafeRawBufferPointer(start: address, count: Int(info.st_size))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        close(descriptor)
    }

    /// The bytes `offset..<offset + count` (cut at the end of the file), copied.
    func read(_ offset: Int, _ count: Int) -> [UInt8] {
        let start = min(max(offset, 0), bytes.count)
        let (wanted, overflow) = start.addingReportingOverflow(max(count, 0))
        let end = overflow ? bytes.count : min(wanted, bytes.count)
        return Array(bytes[start..<end])
    }

    /// Lets go of the whole pages inside `range` (they stay in the page cache, out of this process's memory).
    func release(_ range: Range<Int>) {
        guard let base = bytes.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (range.lowerBound + page - 1) / page * page
        let end = range.upperBound >= bytes.count ? bytes.count : range.upperBound / page * page
        guard start < end else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + start), end - start, MADV_DONTNEED)
    }
}

/// The bytes of one slice for page hashing: the slice's own array, or its range of a mapped executable.
enum SliceBytes: Sendable {
    case array([UInt8])
    case mapped(MappedExecutable, offset: Int, count: Int)

    var count: Int {
        switch self {
        case .array(let bytes): return bytes.count
        case .mapped(_, _, let count): return count
        }
    }

    /// Runs `body` over the slice's bytes.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch self {
        case .array(let bytes): return bytes.withUnsafeBytes(body)
        case .mapped(let map, let offset, let count): return body(UnsafeRawBufferPointer(rebasing: map.bytes[offset..<offset + count]))
        }
    }

    /// Lets go of `range` of the slice once hashed (mapped bytes only).
    func release(_ range: Range<Int>) {
        if case .mapped(let map, let offset, _) = self { map.release(offset + range.lowerBound..<offset + range.upperBound) }
    }
}
