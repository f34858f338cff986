import CLibZip
import Foundation
import PlistKit
import SystemSupport

/// Writes a zip archive through libzip, the way Apple's tools frame an ipa: sizes and CRCs in
/// the local headers (no data descriptors), explicit directory entries, Unix modes, DOS times
/// in UTC, UTF-8 names flagged, and ZIP64 only where sizes need it.
///
/// Compressed data is made elsewhere (on all cores) and handed to libzip already deflated,
/// so libzip only frames and copies it.
final class ZipArchiveWriter: ArchiveWriting {
    private let archive: OpaquePointer
    let path: String
    /// Set once libzip has released the archive (written or discarded); it must not be touched again.
    private var finished = false

    /// Unix file types in the high half of the external attributes, as Info-ZIP writes them.
    enum Kind {
        case directory, file, symlink

        func externalAttributes(permissions: UInt32) -> UInt32 {
            switch self {
            case .directory: return (0o040000 | permissions) << 16 | 0x10  // and the MS-DOS directory bit
            case .file: return (0o100000 | permissions) << 16
            case .symlink: return (0o120000 | permissions) << 16
            }
        }
    }

    init(creating path: String) throws {
        self.path = path
        var error: Int32 = 0
        guard let archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &error) else {
            throw Diagnostic.ipa("cannot be created: \(ZipArchiveWriter.message(forCode: error))", file: path)
        }
        self.archive = archive
    }

    static func message(forCode code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        return String(cString: zip_error_strerror(&error))
    }

    private var lastError: String { String(cString: zip_strerror(archive)) }

    /// Adds a directory entry (`name` ends with `/`).
    func addDirectory(_ name: String, permissions: UInt32, dosTime: DOSTime) throws {
        let index = zip_dir_add(archive, name, ZIP_FL_ENC_UTF_8)
        guard index >= 0 else { throw Diagnostic.ipa("cannot add directory: \(lastError)", file: path, entry: name) }
        try finish(UInt64(index), name: name, kind: .directory, permissions: permissions, dosTime: dosTime, store: true)
    }

    /// Adds a symbolic link, stored as its target path.
    func addSymlink(_ name: String, target: String, dosTime: DOSTime) throws {
        let bytes = Array(target.utf8)
        // libzip takes ownership (freep = 1) and releases it with free().
        let owned = malloc(max(bytes.count, 1))!
        bytes.withUnsafeBytes { _ = memcpy(owned, $0.baseAddress!, bytes.count) }
        guard let source = zip_source_buffer(archive, owned, UInt64(bytes.count), 1) else {
            free(owned)
            throw Diagnostic.ipa("cannot add link: \(lastError)", file: path, entry: name)
        }
        try add(name, source: source, kind: .symlink, permissions: 0o777, dosTime: dosTime, store: true)
    }

    /// Adds a file whose bytes libzip reads itself (used to store without compressing); libzip
    /// finds the `size` itself.
    func addStoredFile(_ name: String, from file: String, size: Int64, permissions: UInt32, dosTime: DOSTime) throws {
        guard let source = zip_source_file(archive, file, 0, -1) else {
            throw Diagnostic.ipa("cannot read: \(lastError)", file: file)
        }
        try add(name, source: source, kind: .file, permissions: permissions, dosTime: dosTime, store: true)
    }

    /// Adds a file from data that is already prepared (deflated or stored) in a spool.
    func addPrepared(_ name: String, entry: PreparedEntry, spool: any PreparedBytes, permissions: UInt32, dosTime: DOSTime) throws {
        let context = PreparedSource(entry: entry, spool: spool)
        let unmanaged = Unmanaged.passRetained(context)
        guard let source = zip_source_function(archive, PreparedSource.callback, unmanaged.toOpaque()) else {
            unmanaged.release()
            throw Diagnostic.ipa("cannot add file: \(lastError)", file: path, entry: name)
        }
        try add(name, source: source, kind: .file, permissions: permissions, dosTime: dosTime, store: !entry.isDeflated)
    }

    private func add(
        _ name: String, source: OpaquePointer, kind: Kind, permissions: UInt32, dosTime: DOSTime,
        store: Bool
    ) throws {
        let index = zip_file_add(archive, name, source, ZIP_FL_ENC_UTF_8)
        guard index >= 0 else {
            zip_source_free(source)
            throw Diagnostic.ipa("cannot add: \(lastError)", file: path, entry: name)
        }
        try finish(UInt64(index), name: name, kind: kind, permissions: permissions, dosTime: dosTime, store: store)
    }

    private func finish(_ index: UInt64, name: String, kind: Kind, permissions: UInt32, dosTime: DOSTime, store: Bool) throws {
        if store && zip_set_file_compression(archive, index, ZIP_CM_STORE, 0) != 0 {
            throw Diagnostic.ipa("cannot set compression: \(lastError)", file: path, entry: name)
        }
        guard
            zip_file_set_external_attributes(
                archive, index, 0, UInt8(ZIP_OPSYS_UNIX),
                kind.externalAttributes(permissions: permissions)) == 0,
            zip_file_set_dostime(archive, index, dosTime.time, dosTime.date, 0) == 0
        else {
            throw Diagnostic.ipa("cannot set attributes: \(lastError)", file: path, entry: name)
        }
    }

    /// Writes the archive; libzip reads every source now, in entry order.
    func close() throws {
        guard !finished else { return }
        finished = true
        if zip_close(archive) != 0 {
            let message = lastError
            zip_discard(archive)
            throw Diagnostic.ipa("cannot be written: \(message)", file: path)
        }
    }

    /// Abandons the archive without writing it (once; after `close` it does nothing).
    func discard() {
        guard !finished else { return }
        finished = true
        zip_discard(archive)
    }
}

/// A DOS date and time (two-second resolution, 1980 to 2107), always taken in UTC so the same
/// input gives the same archive in every time zone.
struct DOSTime: Equatable {
    var time: UInt16
    var date: UInt16

    init(unixTime: Int64) {
        var clamped = max(unixTime, 315_532_800)  // 1980-01-01T00:00:00Z
        clamped = min(clamped, 4_354_819_198)  // 2107-12-31T23:59:58Z
        let days = clamped / 86_400
        let seconds = clamped % 86_400
        let (year, month, day) = PlistDate.civil(fromDays: days)
        date = UInt16((year - 1980) << 9 | month << 5 | day)
        time = UInt16((seconds / 3600) << 11 | (seconds / 60 % 60) << 5 | (seconds % 60) / 2)
    }
}
