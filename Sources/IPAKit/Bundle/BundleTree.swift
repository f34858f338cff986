import Foundation
import SystemSupport

/// The files of a folder as they will go into an archive: walked depth first with names sorted
/// at each level (so the order is the same on every machine), symlinks kept as links,
/// `.DS_Store` and `__MACOSX` left out.
struct BundleTree {
    struct Entry {
        enum Kind {
            case directory, file
            case symlink(target: String)
        }

        /// Path inside the archive; directories end with `/`.
        var archivePath: String
        /// A file left in the archive a folder was unpacked from (``CarriedEntries``): `sourcePath`
        /// is where it would be, and nothing is there.
        var isLeftInArchive = false
        var sourcePath: String
        var kind: Kind
        var size: Int64
        var permissions: UInt32
        var modificationTime: Int64
        /// A regular file's identity when the walk met it (nil for anything else, and for a file
        /// listed without its details): what packaging compares with a file compressed ahead.
        var identity: FileIdentity?
    }

    /// Two names, compared one by one: cheaper than hashing every name of a tree for a set.
    static let ignoredNames = [".DS_Store", "__MACOSX"]

    /// Lists `root` (itself included as `prefix/`) with every path under `prefix`. With more
    /// than one thread, `root`'s subfolders are walked side by side (listing a tree is mostly the
    /// kernel's work, which spreads over cores), and their lists joined in order. The files `carried`
    /// left in its archive under `root` (``CarriedEntries/leftInArchive(under:)``) follow, as if
    /// they were there, sorted by path.
    static func entries(of root: String, prefix: String, threads: Int = 1, leftIn carried: CarriedEntries?) throws -> [Entry] {
        var result = try entries(of: root, prefix: prefix, threads: threads)
        guard let carried else { return result }
        // What the walk met is all that is there (an ignored name aside: those are left out anyway).
        let left = carried.leftInArchive(under: root, present: Set(result.map(\.sourcePath))).compactMap { file -> Entry? in
            let relative = file.path.dropFirst(root.count)
            guard !relative.split(separator: "/").contains(where: { ignoredNames.contains(String($0)) }) else { return nil }
            var entry = Entry(
                archivePath: prefix + relative, sourcePath: file.path, kind: .file, size: file.size, permissions: file.permissions,
                modificationTime: file.modificationTime)
            entry.isLeftInArchive = true
            return entry
        }
        result += left.sorted { UTF8Order.precedes($0.archivePath, $1.archivePath) }
        return result
    }

    /// Lists the folder `root` as ``entries(of:prefix:threads:leftIn:)`` does, its files alone.
    /// Without `statsFiles`, a file its folder's listing names as one (`d_type`) gets no `lstat`:
    /// its size, permissions and time are 0, for a caller that checks names, kinds and links only.
    static func entries(of root: String, prefix: String, threads: Int = 1, statsFiles: Bool = true) throws -> [Entry] {
        guard let folder = opendir(root) else { throw Diagnostic.system("cannot be listed", file: root) }
        let rootInfo: stat
        do { rootInfo = try info(root) } catch {
            closedir(folder)
            throw error
        }
        guard threads > 1 else {
            var result: [Entry] = []
            try walk(folder, path: root, info: rootInfo, archivePath: prefix, relative: [], statsFiles: statsFiles, into: &result)
            return result
        }
        defer { closedir(folder) }
        var result = [folderEntry(path: root, info: rootInfo, archivePath: prefix)]
        let children = try self.children(of: folder, path: root, statsFiles: statsFiles)
        let subfolders = children.indices.filter { children[$0].info.st_mode & S_IFMT == S_IFDIR }
        let subtrees = DisjointSlots<Result<[Entry], any Error>>(count: subfolders.count)
        defer { subtrees.deallocate() }
        let sharedChildren = children
        let folderPointer = UnsafeSendable(folder)
        // Each subtree's failure is kept in its slot, so the first in listing order is the one thrown.
        try Parallel.forEach(subfolders.count) { slot in
            let (name, childInfo) = sharedChildren[subfolders[slot]]
            subtrees.set(
                slot,
                Result {
                    var list: [Entry] = []
                    try add(
                        name, info: childInfo, in: folderPointer.value, path: root, archivePath: prefix, relative: [],
                        statsFiles: statsFiles, into: &list)
                    return list
                })
        }
        var slot = 0
        for (name, childInfo) in children {
            if childInfo.st_mode & S_IFMT == S_IFDIR {
                result += try subtrees[slot].get()
                slot += 1
            } else {
                try add(
                    name, info: childInfo, in: folder, path: root, archivePath: prefix, relative: [], statsFiles: statsFiles,
                    into: &result)
            }
        }
        return result
    }

    private static func info(_ path: String) throws -> stat {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw Diagnostic.system("cannot be read", file: path) }
        return info
    }

    private static func folderEntry(path: String, info: stat, archivePath: String) -> Entry {
        Entry(
            archivePath: archivePath + "/", sourcePath: path, kind: .directory, size: 0,
            permissions: UInt32(info.st_mode) & 0o7777, modificationTime: Int64(info.st_mtim.tv_sec))
    }

    /// Lists `folder`, open at `path` (whose `lstat` is `folderInfo`), and closes it. Each name's
    /// details come from `fstatat`, and each subfolder is opened with `openat`, relative to the
    /// open folder, so no path is looked up again from the top (which costs a lookup per level
    /// in a deep tree).
    private static func walk(
        _ folder: OpaquePointer, path: String, info folderInfo: stat, archivePath: String, relative: [String], statsFiles: Bool,
        into result: inout [Entry]
    ) throws {
        defer { closedir(folder) }
        result.append(folderEntry(path: path, info: folderInfo, archivePath: archivePath))
        for (name, childInfo) in try children(of: folder, path: path, statsFiles: statsFiles) {
            try add(
                name, info: childInfo, in: folder, path: path, archivePath: archivePath, relative: relative, statsFiles: statsFiles,
                into: &result)
        }
    }

    /// The names in `folder` (open at `path`) with their `lstat`, sorted by their bytes, without
    /// `.`, `..` and the ignored names. Without `statsFiles`, a regular file as the listing says has
    /// no `lstat`: its `info` holds its kind alone.
    private static func children(of folder: OpaquePointer, path: String, statsFiles: Bool) throws -> [(name: String, info: stat)] {
        let folderDescriptor = dirfd(folder)
        guard let listing = try FileIO.listing(of: folderDescriptor, folder: path) else {
            throw Diagnostic.system("cannot be listed", file: path)
        }
        var children: [(name: String, info: stat)] = []
        children.reserveCapacity(listing.count)
        for listed in listing where !ignoredNames.contains(listed.name) {
            var childInfo = stat()
            if !statsFiles && listed.type == DT_REG {
                childInfo.st_mode = S_IFREG
                children.append((listed.name, childInfo))
                continue
            }
            guard fstatat(folderDescriptor, listed.name, &childInfo, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw Diagnostic.system("cannot be read", file: path + "/" + listed.name)
            }
            children.append((listed.name, childInfo))
        }
        // Sorted through their indices: a stat is 144 bytes, which sorting the pairs would move again and again.
        return children.indices.sorted { UTF8Order.precedes(children[$0].name, children[$1].name) }.map { children[$0] }
    }

    /// Appends the entry for `name` in `folder` (open at `path`, `archivePath` in the archive,
    /// `relative` below the top), walking it first if it is a folder.
    private static func add(
        _ name: String, info childInfo: stat, in folder: OpaquePointer, path: String, archivePath: String, relative: [String],
        statsFiles: Bool, into result: inout [Entry]
    ) throws {
        let child = path + "/" + name
        let childArchive = archivePath + "/" + name
        switch childInfo.st_mode & S_IFMT {
        case S_IFDIR:
            let descriptor = openat(dirfd(folder), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0, let subfolder = fdopendir(descriptor) else {
                if descriptor >= 0 { close(descriptor) }
                throw Diagnostic.system("cannot be listed", file: child)
            }
            try walk(
                subfolder, path: child, info: childInfo, archivePath: childArchive, relative: relative + [name], statsFiles: statsFiles,
                into: &result)
        case S_IFREG:
            result.append(
                Entry(
                    archivePath: childArchive, sourcePath: child, kind: .file, size: Int64(childInfo.st_size),
                    permissions: UInt32(childInfo.st_mode) & 0o7777,
                    modificationTime: Int64(childInfo.st_mtim.tv_sec), identity: statsFiles ? FileIdentity(childInfo) : nil))
        case S_IFLNK:
            let target = try linkTarget(child)
            try checkInside(target, linkFolder: relative, link: child)
            var top = path
            for _ in relative { top = (top as NSString).deletingLastPathComponent }
            try checkResolvesInside(child, target: target, top: top)
            result.append(
                Entry(
                    archivePath: childArchive, sourcePath: child, kind: .symlink(target: target),
                    size: Int64(target.utf8.count), permissions: 0o777,
                    modificationTime: Int64(childInfo.st_mtim.tv_sec)))
        default:
            throw Diagnostic.ipa("is neither a file, a folder nor a symbolic link", file: child)
        }
    }

    static func linkTarget(_ path: String) throws -> String {
        guard let target = FileIO.linkTarget(path) else { throw Diagnostic.system("cannot read link", file: path) }
        return target
    }

    /// A link whose path stays inside by its text can still lead out through another link
    /// (`u -> .` beside `v -> u/..`): where it really leads, once every link on the way is
    /// followed, must be inside `top` too. A link to nothing is judged by its text alone.
    static func checkResolvesInside(_ link: String, target: String, top: String) throws {
        guard let inside = FileIO.realPath(link), let folder = FileIO.realPath(top) else { return }
        guard inside == folder || inside.hasPrefix(folder == "/" ? "/" : folder + "/") else {
            throw Diagnostic.ipa("is a symbolic link to '\(target)', which leads outside the bundle through another link", file: link)
        }
    }

    /// A link must stay inside the bundle: relative, and never climbing above the bundle's top.
    static func checkInside(_ target: String, linkFolder: [String], link: String) throws {
        guard !target.hasPrefix("/") else {
            throw Diagnostic.ipa("is a symbolic link to '\(target)', outside the bundle (absolute links break on devices)", file: link)
        }
        var components = linkFolder
        for component in target.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." {
                guard !components.isEmpty else {
                    throw Diagnostic.ipa("is a symbolic link to '\(target)', which points outside the bundle", file: link)
                }
                components.removeLast()
            } else {
                components.append(String(component))
            }
        }
    }
}

/// A value handed to concurrent work that only reads it (an open folder's `DIR`, whose descriptor
/// the workers open subfolders relative to).
private struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
