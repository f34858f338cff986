import CLibZip
import Foundation
import PlistKit
import SystemSupport

/// Reads an ipa (or any zip) through libzip without unpacking it, treating it as untrusted:
/// absolute and `..` names, duplicate and encrypted entries, inconsistent central directories,
/// truncated files, sizes that do not match what was declared, and archives that would expand
/// past a limit are all clear errors.
public final class ZipArchiveReader {
    /// Limits on what a reader accepts; a user with a legitimately huge ipa can raise them.
    public struct Limits: Sendable, Equatable {
        public var maxEntries = 200_000
        /// Total declared uncompressed size of all entries.
        public var maxTotalSize: Int64 = 16 << 30
        /// Largest entry read into memory at once.
        public var maxEntryReadSize: Int64 = 512 << 20
        /// Largest compression ratio of a large entry (deflate tops out near 1,032; zip bombs sit there).
        public var maxRatio: Int64 = 1_000
        /// Entries at least this large have their ratio checked.
        public var ratioCheckSize: Int64 = 64 << 20

        public init() {}

        /// The built-in limits, which readers use when given none. The command-line tool builds its own
        /// from `ADHOCBUILD_MAX_*` environment variables and passes them to every read.
        public static let standard = Limits()
    }

    public struct Entry: Sendable {
        public var name: String
        public var index: UInt64
        public var size: Int64
        public var compressedSize: Int64
        public var crc: UInt32
        /// The compression method (`ZIP_CM_STORE`, `ZIP_CM_DEFLATE`, …).
        public var compressionMethod: Int32 = ZIP_CM_DEFLATE
        /// Unix mode bits from the external attributes, when the archive was made on Unix.
        public var mode: UInt32?
        /// When the entry was last changed (Unix time, from its DOS date and time), when recorded.
        public var modificationTime: Int64?
        public var isDirectory: Bool { name.hasSuffix("/") || (mode.map { $0 & 0o170000 == 0o040000 } ?? false) }
        public var isSymlink: Bool { mode.map { $0 & 0o170000 == 0o120000 } ?? false }
        public var isExecutable: Bool { mode.map { $0 & 0o111 != 0 } ?? false }
    }

    public let path: String
    public let entries: [Entry]
    public let limits: Limits
    let archive: OpaquePointer
    /// Held around every libzip call on `archive` (one thread at a time may use a handle).
    let lock = Locked()
    /// What chunked reads have used (ZipEntryChunks.swift).
    let chunkStatistics = Locked((largest: 0, reads: 0))
    /// More handles on the same file, each used by one chunked read at a time, so several threads
    /// inflate at once (ZipEntryChunks.swift). Opened on demand, at most one per concurrent read.
    let spareHandles = Locked(SpareZipHandles())
    private let byName: [String: Int]
    /// ``PayloadLayout/app(in:archive:)`` of the entries, once worked out (``payloadApp()``).
    private let payloadLayout = Locked<Result<String, any Error>?>(nil)
    /// Where each entry's data starts in the file, by index (nil when the local header check could not
    /// place them, and the archive is read through libzip alone).
    private let dataOffsets: [Int64]?

    /// The app folder's name (`Demo.app`) when the entries form an installable Payload
    /// (``PayloadLayout/app(in:archive:)``), worked out once per reader.
    public func payloadApp() throws -> String {
        if let known = payloadLayout.withLock({ $0 }) { return try known.get() }
        let result = Result { try PayloadLayout.app(in: entries, archive: path) }
        payloadLayout.withLock { $0 = result }
        return try result.get()
    }

    public init(path: String, limits: Limits = .standard) throws {
        self.path = path
        self.limits = limits
        var error: Int32 = 0
        // Not ZIP_CHECKCONS: real ipas (Xcode's among them) often differ harmlessly between local and
        // central headers; every entry's size and CRC are checked when it is read instead.
        guard let archive = zip_open(path, ZIP_RDONLY, &error) else {
            let reason: String
            switch error {
            case ZIP_ER_NOENT: reason = "no such file"
            case ZIP_ER_NOZIP: reason = "is not a zip archive (no end of central directory; truncated?)"
            case ZIP_ER_INCONS: reason = "is a damaged zip archive (its central directory is inconsistent)"
            default: reason = "cannot be opened: \(ZipArchiveWriter.message(forCode: error))"
            }
            throw Diagnostic.ipa(reason, file: path)
        }
        self.archive = archive
        do {
            let count = zip_get_num_entries(archive, 0)
            guard count <= limits.maxEntries else {
                throw Diagnostic.ipa(
                    "has \(count) entries, more than the limit of \(limits.maxEntries)", file: path,
                    isLimitExceeded: true)
            }
            var entries: [Entry] = []
            var byName: [String: Int] = [:]
            var total: Int64 = 0
            for index in 0..<UInt64(count) {
                var stat = zip_stat_t()
                guard zip_stat_index(archive, index, ZIP_FL_ENC_RAW, &stat) == 0, let rawName = stat.name else {
                    throw Diagnostic.ipa("cannot read entry \(index): \(String(cString: zip_strerror(archive)))", file: path)
                }
                let nameBytes = Array(
                    UnsafeBufferPointer(
                        start: UnsafeRawPointer(rawName).assumingMemoryBound(to: UInt8.self),
                        count: strlen(rawName)))
                guard let name = String(validating: nameBytes, as: UTF8.self) else {
                    throw Diagnostic.ipa("has an entry whose name is not UTF-8 (entry \(index))", file: path)
                }
                try ZipArchiveReader.checkName(name, in: path)
                if stat.encryption_method != UInt16(ZIP_EM_NONE) {
                    throw Diagnostic.ipa("is encrypted, which ipas never are", file: path, entry: name)
                }
                if let earlier = byName[name] {
                    // Swift's String equality equates Unicode forms: names with other bytes are two files.
                    let other = entries[earlier].name
                    if !other.utf8.elementsEqual(name.utf8) { throw PayloadLayout.differOnlyInForm(name, other, archive: path) }
                    throw Diagnostic.ipa("appears twice in the archive", file: path, entry: name)
                }
                let size = Int64(stat.size), compressed = Int64(stat.comp_size)
                total += size
                guard total <= limits.maxTotalSize else {
                    throw Diagnostic.ipa(
                        "would expand to more than \(limits.maxTotalSize) bytes (a zip bomb?)", file: path,
                        isLimitExceeded: true)
                }
                if size >= limits.ratioCheckSize && size / max(compressed, 1) > limits.maxRatio {
                    throw Diagnostic.ipa(
                        "expands \(size / max(compressed, 1)) times (\(compressed) bytes to \(size)); refusing a likely zip bomb",
                        file: path, entry: name, isLimitExceeded: true)
                }
                var system: UInt8 = 0
                var attributes: UInt32 = 0
                zip_file_get_external_attributes(archive, index, 0, &system, &attributes)
                let mode: UInt32? = system == UInt8(ZIP_OPSYS_UNIX) && attributes >> 16 != 0 ? attributes >> 16 : nil
                byName[name] = entries.count
                entries.append(
                    Entry(
                        name: name, index: index, size: size, compressedSize: compressed, crc: stat.crc,
                        compressionMethod: Int32(stat.comp_method), mode: mode,
                        modificationTime: stat.valid & UInt64(ZIP_STAT_MTIME) != 0 ? Int64(stat.mtime) : nil))
            }
            let dataOffsets = try LocalHeaderCheck.check(path: path)
            self.dataOffsets = dataOffsets?.count == entries.count ? dataOffsets : nil
            self.entries = entries
            self.byName = byName
        } catch {
            zip_discard(archive)
            throw error
        }
    }

    deinit {
        zip_discard(archive)
        for handle in spareHandles.value.idle { zip_discard(handle) }
    }

    /// Names that would write outside a target folder when unpacked are refused, and so are names
    /// whose place depends on the unzip tool (empty, `.` or backslash-separated parts).
    static func checkName(_ name: String, in path: String) throws {
        if !isPlainASCIIPath(name) { try checkCharacters(of: name, in: path) }
    }

    /// ``checkName(_:in:)`` for any name, character by character.
    static func checkCharacters(of name: String, in path: String) throws {
        if name.hasPrefix("/") || name.hasPrefix("\\") || (name.count > 1 && name.dropFirst().hasPrefix(":")) {
            throw Diagnostic.ipa("has an absolute path, which could write outside the target", file: path, entry: name)
        }
        let parts = name.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        if parts.contains("..") { throw Diagnostic.ipa("climbs out of the archive with '..'", file: path, entry: name) }
        if name.utf8.contains(0) { throw Diagnostic.ipa("has a NUL byte in its name", file: path, entry: name) }
        let folderless = name.hasSuffix("/") ? name.dropLast() : Substring(name)
        if name.contains("\\")
            || folderless.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." })
        {
            throw Diagnostic.ipa(
                "is not a plain path (empty, '.' or backslash-separated parts), so unzip tools disagree on where it goes",
                file: path, entry: name)
        }
    }

    /// Whether `name` passes ``checkName(_:in:)``, decided on its bytes when they are all printable
    /// ASCII (each byte then one character, as the checks there see them); false for any other name,
    /// which is left to those checks. Thousands of entries are checked before an ipa is read.
    static func isPlainASCIIPath(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard let first = bytes.first, first != UInt8(ascii: "/"), bytes.count < 2 || bytes[1] != UInt8(ascii: ":") else {
                return false
            }
            // The parts between slashes (a folder's one trailing slash aside): none empty, `.` or `..`.
            let end = bytes.last == UInt8(ascii: "/") ? bytes.count - 1 : bytes.count
            var partStart = 0
            for index in 0...end {
                if index < end {
                    let byte = bytes[index]
                    guard byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "\\") else { return false }
                    if byte != UInt8(ascii: "/") { continue }
                }
                let length = index - partStart
                if length == 0
                    || (bytes[partStart] == UInt8(ascii: ".")
                        && (length == 1 || (length == 2 && bytes[partStart + 1] == UInt8(ascii: "."))))
                {
                    return false
                }
                partStart = index + 1
            }
            return true
        }
    }

    public func entry(named name: String) -> Entry? { byName[name].map { entries[$0] } }

    /// Where `entry`'s data, as stored (compressed), starts in the archive file; nil when unknown
    /// (a directory the local header check could not read), and then the entry can only be read
    /// through libzip.
    public func dataOffset(of entry: Entry) -> Int64? { dataOffsets?[Int(entry.index)] }

    /// Reads an entry whole, checking that its size is what the directory declared (libzip
    /// checks the CRC as the last bytes are read).
    public func data(_ entry: Entry) throws -> Data {
        guard entry.size <= limits.maxEntryReadSize else {
            throw Diagnostic.ipa(
                "is \(entry.size) bytes, more than the \(limits.maxEntryReadSize) read into memory", file: path, entry: entry.name,
                isLimitExceeded: true)
        }
        return try lock.withLock { try wholeData(entry) }
    }

    /// `data(_:)`'s read, holding the lock.
    private func wholeData(_ entry: Entry) throws -> Data {
        guard let file = zip_fopen_index(archive, entry.index, 0) else {
            throw Diagnostic.ipa("cannot be read: \(String(cString: zip_strerror(archive)))", file: path, entry: entry.name)
        }
        defer { zip_fclose(file) }
        var output = Data(count: Int(entry.size) + 1)
        var total = 0
        while true {
            let result = output.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress! + total, UInt64($0.count - total)) }
            if result < 0 {
                throw Diagnostic.ipa("is damaged: \(String(cString: zip_file_strerror(file)))", file: path, entry: entry.name)
            }
            if result == 0 { break }
            total += Int(result)
            if total > Int(entry.size) {
                throw Diagnostic.ipa("holds more data than the \(entry.size) bytes it declares", file: path, entry: entry.name)
            }
        }
        guard total == Int(entry.size) else {
            throw Diagnostic.ipa("holds \(total) bytes but declares \(entry.size)", file: path, entry: entry.name)
        }
        output.removeLast()
        return output
    }

    /// Reads every file entry to its end, through a small buffer, and returns those whose data is
    /// damaged (libzip checks each CRC as the last bytes are read) or not of the declared size,
    /// each with what is wrong: what `unzip -t` finds, and iOS's installer too.
    public func damagedEntries() -> [(name: String, problem: String)] {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        return lock.withLock { damagedEntries(through: buffer) }
    }

    /// `damagedEntries()`'s reads, holding the lock, through `buffer` (1 MiB).
    private func damagedEntries(through buffer: UnsafeMutableRawPointer) -> [(name: String, problem: String)] {
        var damaged: [(name: String, problem: String)] = []
        for entry in entries where !entry.isDirectory {
            guard let file = zip_fopen_index(archive, entry.index, 0) else {
                damaged.append((entry.name, "cannot be read: \(String(cString: zip_strerror(archive)))"))
                continue
            }
            defer { zip_fclose(file) }
            var total: Int64 = 0
            while true {
                let result = zip_fread(file, buffer, 1 << 20)
                if result < 0 {
                    damaged.append((entry.name, "is damaged: \(String(cString: zip_file_strerror(file)))"))
                    break
                }
                if result == 0 {
                    if total != entry.size { damaged.append((entry.name, "holds \(total) bytes but declares \(entry.size)")) }
                    break
                }
                total += result
            }
        }
        return damaged
    }

    public func data(named name: String) throws -> Data {
        guard let entry = entry(named: name) else { throw Diagnostic.ipa("is not in the archive", file: path, entry: name) }
        return try data(entry)
    }
}
