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
        var sourcePath: String
        var kind: Kind
        var size: Int64
        var permissions: UInt32
        var modificationTime: Int64
    }

    static let ignoredNames: Set<String> = [".DS_Store", "__MACOSX"]

    /// Lists `root` (itself included as `prefix/`) with every path under `prefix`.
    static func entries(of root: String, prefix: String) throws -> [Entry] {
        var result: [Entry] = []
        guard let folder = opendir(root) else { throw SystemError("cannot be listed", file: root) }
        try walk(folder, path: root, info: try info(root), archivePath: prefix, relative: [], into: &result)
        return result
    }

    private static func info(_ path: String) throws -> stat {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SystemError("cannot be read", file: path) }
        return info
    }

    /// Lists `folder`, open at `path` (whose `lstat` is `folderInfo`), and closes it. Each name's
    /// details come from `fstatat`, and each subfolder is opened with `openat`, relative to the
    /// open folder, so no path is looked up again from the top (which costs a lookup per level
    /// in a deep tree).
    private static func walk(
        _ folder: OpaquePointer, path: String, info folderInfo: stat, archivePath: String, relative: [String],
        into result: inout [Entry]
    ) throws {
        defer { closedir(folder) }
        result.append(
            Entry(
                archivePath: archivePath + "/", sourcePath: path, kind: .directory, size: 0,
                permissions: UInt32(folderInfo.st_mode) & 0o7777, modificationTime: Int64(folderInfo.st_mtim.tv_sec)))
        let folderDescriptor = dirfd(folder)
        var children: [(name: String, info: stat)] = []
        while true {
            errno = 0
            guard let record = readdir(folder) else {
                if errno != 0 { throw SystemError("cannot be listed", file: path) }
                break
            }
            let name = withUnsafeBytes(of: record.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." || ignoredNames.contains(name) { continue }
            var childInfo = stat()
            guard fstatat(folderDescriptor, name, &childInfo, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw SystemError("cannot be read", file: path + "/" + name)
            }
            children.append((name, childInfo))
        }
        children.sort { bytesPrecede($0.name, $1.name) }
        for (name, childInfo) in children {
            let child = path + "/" + name
            let childArchive = archivePath + "/" + name
            switch childInfo.st_mode & S_IFMT {
            case S_IFDIR:
                let descriptor = openat(folderDescriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard descriptor >= 0, let subfolder = fdopendir(descriptor) else {
                    if descriptor >= 0 { close(descriptor) }
                    throw SystemError("cannot be listed", file: child)
                }
                try walk(subfolder, path: child, info: childInfo, archivePath: childArchive, relative: relative + [name], into: &result)
            case S_IFREG:
                result.append(
                    Entry(
                        archivePath: childArchive, sourcePath: child, kind: .file, size: Int64(childInfo.st_size),
                        permissions: UInt32(childInfo.st_mode) & 0o7777,
                        modificationTime: Int64(childInfo.st_mtim.tv_sec)))
            case S_IFLNK:
                let target = try linkTarget(child)
                try checkInside(target, linkFolder: relative, link: child)
                result.append(
                    Entry(
                        archivePath: childArchive, sourcePath: child, kind: .symlink(target: target),
                        size: Int64(target.utf8.count), permissions: 0o777,
                        modificationTime: Int64(childInfo.st_mtim.tv_sec)))
            default:
                throw IPAError("is neither a file, a folder nor a symbolic link", file: child)
            }
        }
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s, compared with `memcmp` where both are
    /// contiguous (native strings are), byte by byte otherwise.
    static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        let compared = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                guard let first = a.baseAddress, let second = b.baseAddress else { return a.count < b.count }
                let order = memcmp(first, second, min(a.count, b.count))
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
        return (compared ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    static func linkTarget(_ path: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { throw SystemError("cannot read link", file: path) }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A link must stay inside the bundle: relative, and never climbing above the bundle's top.
    static func checkInside(_ target: String, linkFolder: [String], link: String) throws {
        guard !target.hasPrefix("/") else {
            throw IPAError("is a symbolic link to '\(target)', outside the bundle (absolute links break on devices)", file: link)
        }
        var components = linkFolder
        for component in target.split(separator: "/", omittingEmptySubsequences: true) {
            if component == "." { continue }
            if component == ".." {
                guard !components.isEmpty else {
                    throw IPAError("is a symbolic link to '\(target)', which points outside the bundle", file: link)
                }
                components.removeLast()
            } else {
                components.append(String(component))
            }
        }
    }
}
