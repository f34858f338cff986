import Foundation
import SystemSupport

/// Walks a folder tree with `readdir` and `lstat`, a folder before what it holds, symbolic links
/// not followed. Foundation's enumerator builds URLs and rewrites every path it returns, which
/// cost more than copying the small files of an app; this gives each entry's path and its `lstat`
/// in one call per entry.
enum FolderWalk {
    /// An entry as ``walkListing(_:_:)`` gives it.
    enum Entry {
        /// A regular file, as its folder's listing says: no `lstat` was made for it.
        case regularFile
        /// Any other entry, or one whose kind the listing did not give, with its `lstat`.
        case other(stat)
    }

    /// Calls `visit` with the path of every entry under `root` relative to it, its full path and
    /// its `lstat`, in no particular order among siblings; a folder's entries follow the folder.
    /// `visit` returns false to stop the walk. Errors are one line naming the path.
    static func walk(_ root: String, _ visit: (_ relative: String, _ path: String, _ info: stat) throws -> Bool) throws {
        _ = try walk(root, relative: "", statsRegularFiles: true) { relative, path, entry in
            guard case .other(let info) = entry else { return true }  // never: every entry is statted
            return try visit(relative, path, info)
        }
    }

    /// ``walk(_:_:)`` without an `lstat` for the entries the listing names as regular files: for a
    /// walk that needs only to know a file is one (thousands of system calls fewer on a large app).
    static func walkListing(_ root: String, _ visit: (_ relative: String, _ path: String, _ entry: Entry) throws -> Bool) throws {
        _ = try walk(root, relative: "", statsRegularFiles: false, visit)
    }

    /// Walks the folder `folder` (`relative` to the root, empty for the root); false when stopped.
    /// Each entry is looked up from its folder's descriptor, not from the root again.
    private static func walk(
        _ folder: String, relative: String, statsRegularFiles: Bool, _ visit: (String, String, Entry) throws -> Bool
    ) throws -> Bool {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Diagnostic.codeSign(.unreadable, "cannot be listed: \(SystemError.describe(errno))", file: folder)
        }
        var entries: [(name: String, entry: Entry)] = []
        do {
            defer { close(descriptor) }
            guard let listing = try FileIO.listing(of: descriptor, folder: folder) else {
                throw Diagnostic.codeSign(.unreadable, "cannot be listed: \(SystemError.describe(errno))", file: folder)
            }
            entries.reserveCapacity(listing.count)
            for listed in listing {
                if !statsRegularFiles && listed.type == DT_REG {
                    entries.append((listed.name, .regularFile))
                    continue
                }
                var info = stat()
                guard fstatat(descriptor, listed.name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    throw Diagnostic.codeSign(
                        .unreadable, "cannot be read: \(SystemError.describe(errno))", file: folder + "/" + listed.name)
                }
                entries.append((listed.name, .other(info)))
            }
        }
        for (name, entry) in entries {
            let path = folder + "/" + name
            let inner = relative.isEmpty ? name : relative + "/" + name
            guard try visit(inner, path, entry) else { return false }
            if case .other(let info) = entry, info.st_mode & S_IFMT == S_IFDIR {
                guard try walk(path, relative: inner, statsRegularFiles: statsRegularFiles, visit) else { return false }
            }
        }
        return true
    }
}
