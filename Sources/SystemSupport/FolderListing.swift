import Foundation

extension FileIO {
    /// The names in the folder `folder` (not `.` and `..`), in no particular order; a failure is one
    /// line naming the folder (`cannot be listed: Permission denied`), not Foundation's dump.
    public static func names(in folder: String) throws -> [String] {
        do { return try FileManager.default.contentsOfDirectory(atPath: folder) } catch {
            throw FoundationError.fileError(error, action: "cannot be listed", file: folder)
        }
    }

    /// Adds `data` at the end of the file at `path` (made when missing), as a CI server's output
    /// files are written to; a failure is one line naming the file.
    public static func append(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw Diagnostic.system("cannot be written", file: path, code: errno) }
        defer { close(fd) }
        try inFile(path, only: FileProblem.self) { try data.withUnsafeBytes { try writeAll(fd, $0) } }
    }
}

/// One entry of a folder listing: its name and the kind the listing gives for it (`d_type`:
/// `DT_REG`, `DT_DIR`, `DT_LNK`, …, or `DT_UNKNOWN` where the file system does not say), so a walk
/// that needs no more than the kind of each entry makes no `lstat` for it.
public struct ListedEntry: Sendable {
    public let name: String
    public let type: UInt8
}

extension FileIO {
    /// The entries of the folder open as `descriptor` (which stays open, listed from its start), `.` and
    /// `..` left out, in the order the file system lists them; nil with `errno` set when the folder
    /// cannot be listed. A name that is not UTF-8 is an error naming `folder` (``DirectoryEntryName``).
    public static func listing(of descriptor: Int32, folder: String) throws -> [ListedEntry]? {
        let duplicate = dup(descriptor)
        guard duplicate >= 0 else { return nil }
        guard let directory = fdopendir(duplicate) else {
            let code = errno
            close(duplicate)
            errno = code
            return nil
        }
        defer { closedir(directory) }
        rewinddir(directory)
        var entries: [ListedEntry] = []
        while true {
            errno = 0
            guard let record = readdir(directory) else { return errno == 0 ? entries : nil }
            let name = try withUnsafeBytes(of: record.pointee.d_name) { try DirectoryEntryName.decode($0, in: folder) }
            if name != "." && name != ".." { entries.append(ListedEntry(name: name, type: record.pointee.d_type)) }
        }
    }
}

extension FileIO {
    /// Removes the file, link or folder tree at `path`: each folder is listed (`d_type`, no `lstat`
    /// per entry, names as the bytes they are) and emptied through its descriptor, links are removed,
    /// never followed. Best effort, as `try? FileManager.removeItem`: what cannot be removed is left.
    /// True when nothing is left at `path`. Removing a linked copy of a 6,400-file app this way took
    /// half the CPU that Foundation's removal took.
    @discardableResult
    public static func removeTree(_ path: String) -> Bool {
        if unlink(path) == 0 || errno == ENOENT { return true }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        removeContents(of: descriptor)
        close(descriptor)
        return rmdir(path) == 0 || errno == ENOENT
    }

    /// Removes what the folder open as `descriptor` holds, folders after what they hold.
    private static func removeContents(of descriptor: Int32) {
        let duplicate = dup(descriptor)
        guard duplicate >= 0 else { return }
        guard let directory = fdopendir(duplicate) else {
            close(duplicate)
            return
        }
        var folders: [[CChar]] = []
        while let record = readdir(directory) {
            let type = record.pointee.d_type
            let name = withUnsafeBytes(of: record.pointee.d_name) { bytes in
                Array(bytes.bindMemory(to: CChar.self).prefix { $0 != 0 }) + [0]
            }
            if name == [46, 0] || name == [46, 46, 0] { continue }  // "." and ".."
            if type == DT_DIR {
                folders.append(name)
            } else if unlinkat(descriptor, name, 0) != 0 && (errno == EISDIR || errno == EPERM) {
                folders.append(name)  // a folder the listing did not say was one (DT_UNKNOWN)
            }
        }
        closedir(directory)
        for name in folders {
            let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if child >= 0 {
                removeContents(of: child)
                close(child)
            }
            unlinkat(descriptor, name, AT_REMOVEDIR)
        }
    }
}
