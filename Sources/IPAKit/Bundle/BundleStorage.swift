import Foundation
import SystemSupport

/// One file of an app bundle, wherever the bundle is stored.
public struct BundleFile: Sendable {
    /// The size in bytes; ``unknownSize`` for a file of a folder opened with ``FolderIndexDetail/kinds``.
    public var size: Int64
    /// Whether its permissions let it run; false for the files and folders of a folder opened with
    /// ``FolderIndexDetail/kinds``, which reads no permissions.
    public var isExecutable: Bool
    public var isSymlink: Bool
    public var isDirectory: Bool

    /// The ``size`` of a file whose size the index does not hold.
    public static let unknownSize: Int64 = -1
}

/// What the index of an app folder holds of each entry.
public enum FolderIndexDetail: Sendable {
    /// Its kind, size and permissions, from each entry's `lstat`.
    case full
    /// Its kind alone, from the folder listings: no `lstat` per entry, for a reader that opens every
    /// file it needs anyway (the signature verifier). Files have ``BundleFile/unknownSize``.
    case kinds
}

/// Where a bundle's files are: a folder on disk, or an ipa read through libzip without
/// unpacking. Paths are relative to the storage's top and use `/`.
public protocol BundleStorage: AnyObject, Sendable {
    /// A name for messages (the folder or the ipa's path).
    var location: String { get }
    var files: [String: BundleFile] { get }
    func read(_ path: String) throws -> Data
    /// Reads the file at `path` in pieces of at most `chunkSize` bytes through one buffer, handing
    /// each piece to `body`: memory stays bounded by `chunkSize` whatever the file's size.
    func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws
    /// Where the file at `path` is, as the user knows it, for messages: the file on disk
    /// (`build/A.app/Assets.car`), or the ipa and the entry in it (`A.ipa`, `Payload/A.app/Assets.car`).
    func place(of path: String) -> (file: String, entry: String?)
    /// Whether the file at `path` was left in the archive the folder was unpacked from (a default says no).
    func isLeftInArchive(_ path: String) -> Bool
}

extension BundleStorage {
    /// Whether the file at `path` is one an unpacked folder left in its archive, with nothing in its
    /// place when the storage was indexed (``UnpackedFolderStorage``); false for any other storage.
    public func isLeftInArchive(_ path: String) -> Bool { false }

    /// ``place(of:)`` as one name: `build/A.app/Assets.car`, or `A.ipa: Payload/A.app/Assets.car`.
    public func displayName(of path: String) -> String {
        let (file, entry) = place(of: path)
        return entry.map { "\(file): \($0)" } ?? file
    }
}

/// A folder: the paths are relative to the folder holding the `.app`.
// @unchecked Sendable: the index and the descriptor are set once in init; the spare buffers are
// behind their lock, and a buffer taken from them belongs to one reader until it is given back.
final class FolderStorage: BundleStorage, @unchecked Sendable {
    let location: String
    let files: [String: BundleFile]
    private let top: String
    /// The folder holding the `.app`, opened once: files are opened relative to it, so the kernel
    /// does not walk the folders above it again for each one.
    private let topDescriptor: Int32
    /// Read buffers of ``spareBufferSize`` bytes given back by readers, for the next ones: a fresh
    /// buffer that large is a new mapping, whose pages the kernel zeroes on first touch.
    private let spareBuffers = Locked<[UnsafeMutableRawBufferPointer]>([])
    private static let spareBufferSize = 1 << 20

    /// Indexes `app` (a `.app` folder) as `<Name>.app/...`, with what `detail` asks of each file;
    /// a walk by kinds hands each folder's regular files to `listedFiles` as it lists them.
    init(app: String, detail: FolderIndexDetail = .full, listedFiles: (([String]) -> Void)? = nil) throws {
        location = app
        top = (app as NSString).deletingLastPathComponent
        let name = (app as NSString).lastPathComponent
        if detail == .kinds, let index = FolderKindIndex.index(of: app, prefix: name, listedFiles: listedFiles) {
            files = index
        } else {
            files = try FolderStorage.fullIndex(of: app, name: name)
        }
        topDescriptor = top.isEmpty ? AT_FDCWD : open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard topDescriptor >= 0 || topDescriptor == AT_FDCWD else {
            throw Diagnostic.ipa("cannot be opened: \(SystemError.describe(errno))", file: top)
        }
    }

    /// The index of `app` from ``BundleTree``'s walk, with each entry's size and permissions.
    private static func fullIndex(of app: String, name: String) throws -> [String: BundleFile] {
        let entries = try BundleTree.entries(of: app, prefix: name)
        var index: [String: BundleFile] = [:]
        index.reserveCapacity(entries.count)
        for entry in entries {
            var path = entry.archivePath
            let isDirectory: Bool
            if case .directory = entry.kind { isDirectory = true; path.removeLast() } else { isDirectory = false }
            let isLink: Bool
            if case .symlink = entry.kind { isLink = true } else { isLink = false }
            index[path] = BundleFile(
                size: entry.size, isExecutable: entry.permissions & 0o111 != 0, isSymlink: isLink,
                isDirectory: isDirectory)
        }
        return index
    }

    deinit {
        if topDescriptor >= 0 { close(topDescriptor) }
        for buffer in spareBuffers.value { buffer.deallocate() }
    }

    func read(_ path: String) throws -> Data {
        let full = top.isEmpty ? path : top + "/" + path
        guard let data = FileManager.default.contents(atPath: full) else { throw Diagnostic.ipa("cannot be read", file: full) }
        return data
    }

    func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = openat(topDescriptor, path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Diagnostic.ipa("cannot be read: \(SystemError.describe(errno))", file: fullPath(path)) }
        defer { close(fd) }
        // The buffer does not depend on the file's size: a spare one holds any chunk up to its size.
        let buffer = takeBuffer(max(1, chunkSize))
        defer { giveBack(buffer) }
        let failure = try FileIO.readToEnd(fd, through: buffer, body)
        guard failure == 0 else { throw Diagnostic.ipa("cannot be read: \(SystemError.describe(failure))", file: fullPath(path)) }
    }

    private func fullPath(_ path: String) -> String { top.isEmpty ? path : top + "/" + path }

    func place(of path: String) -> (file: String, entry: String?) { (fullPath(path), nil) }

    /// A buffer of at least `count` bytes: a spare one when `count` fits in one, else a new one.
    private func takeBuffer(_ count: Int) -> UnsafeMutableRawBufferPointer {
        guard count <= FolderStorage.spareBufferSize else {
            return UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: FileIO.readBufferAlignment)
        }
        return spareBuffers.withLock { $0.popLast() }
            ?? UnsafeMutableRawBufferPointer.allocate(byteCount: FolderStorage.spareBufferSize, alignment: FileIO.readBufferAlignment)
    }

    private func giveBack(_ buffer: UnsafeMutableRawBufferPointer) {
        guard buffer.count == FolderStorage.spareBufferSize else { return buffer.deallocate() }
        spareBuffers.withLock { $0.append(buffer) }
    }
}

/// An ipa, read in place.
// @unchecked Sendable: its index is immutable, and the reader serialises every libzip call behind
// its own lock.
final class ArchiveStorage: BundleStorage, @unchecked Sendable {
    let reader: ZipArchiveReader
    let files: [String: BundleFile]
    var location: String { reader.path }

    init(_ reader: ZipArchiveReader) {
        self.reader = reader
        var index: [String: BundleFile] = [:]
        for entry in reader.entries {
            var path = entry.name
            if path.hasSuffix("/") { path.removeLast() }
            index[path] = BundleFile(
                size: entry.size, isExecutable: entry.isExecutable, isSymlink: entry.isSymlink,
                isDirectory: entry.isDirectory)
            // Archives made without directory entries still imply their folders. (The reader has
            // refused names with a leading slash or empty parts: a folder is the name up to a slash.)
            var parent = ArchiveStorage.folder(of: path)
            while !parent.isEmpty && index[parent] == nil {
                index[parent] = BundleFile(size: 0, isExecutable: false, isSymlink: false, isDirectory: true)
                parent = ArchiveStorage.folder(of: parent)
            }
        }
        files = index
    }

    /// The folder holding `path` (empty at the top): what is before its last slash.
    static func folder(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(path[..<slash])
    }

    func read(_ path: String) throws -> Data {
        guard let entry = reader.entry(named: path) else { throw Diagnostic.ipa("is not in the archive", file: reader.path, entry: path) }
        return try reader.data(entry)
    }

    func place(of path: String) -> (file: String, entry: String?) { (reader.path, path) }

    func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let entry = reader.entry(named: path) else { throw Diagnostic.ipa("is not in the archive", file: reader.path, entry: path) }
        try reader.readChunks(entry, chunkSize: chunkSize, body)
    }
}
