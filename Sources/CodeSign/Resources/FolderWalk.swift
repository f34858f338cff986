import Foundation
import SystemSupport

/// Walks a folder tree with `readdir` and `lstat`, a folder before what it holds, symbolic links
/// not followed. Foundation's enumerator builds URLs and rewrites every path it returns, which
/// cost more than copying the small files of an app; this gives each entry's path and its `lstat`
/// in one call per entry.
enum FolderWalk {
    /// Calls `visit` with the path of every entry under `root` relative to it, its full path and
    /// its `lstat`, in no particular order among siblings; a folder's entries follow the folder.
    /// `visit` returns false to stop the walk. Errors are one line naming the path.
    static func walk(_ root: String, _ visit: (_ relative: String, _ path: String, _ info: stat) throws -> Bool) throws {
        _ = try walk(root, relative: "", visit)
    }

    /// Walks the folder `folder` (`relative` to the root, empty for the root); false when stopped.
    /// Each entry is looked up from its folder's descriptor, not from the root again.
    private static func walk(_ folder: String, relative: String, _ visit: (String, String, stat) throws -> Bool) throws -> Bool {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Diagnostic.codeSign(.unreadable, "cannot be listed: \(SystemError.describe(errno))", file: folder)
        }
        var entries: [(name: String, info: stat)] = []
        do {
            defer { close(descriptor) }
            for name in try names(in: descriptor, folder: folder) {
                var info = stat()
                guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    throw Diagnostic.codeSign(.unreadable, "cannot be read: \(SystemError.describe(errno))", file: folder + "/" + name)
                }
                entries.append((name, info))
            }
        }
        for (name, info) in entries {
            let path = folder + "/" + name
            let inner = relative.isEmpty ? name : relative + "/" + name
            guard try visit(inner, path, info) else { return false }
            if info.st_mode & S_IFMT == S_IFDIR {
                guard try walk(path, relative: inner, visit) else { return false }
            }
        }
        return true
    }

    /// The names in the folder open as `descriptor` apart from `.` and `..`, read before any is
    /// visited so one folder is open at a time whatever the depth.
    static func names(in descriptor: Int32, folder: String) throws -> [String] {
        let listing = dup(descriptor)
        guard listing >= 0, let directory = fdopendir(listing) else {
            let code = errno
            if listing >= 0 { close(listing) }
            throw Diagnostic.codeSign(.unreadable, "cannot be listed: \(SystemError.describe(code))", file: folder)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = try withUnsafeBytes(of: entry.pointee.d_name) { try DirectoryEntryName.decode($0, in: folder) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
