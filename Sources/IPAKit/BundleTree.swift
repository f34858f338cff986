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
        try walk(root, info: try info(root), archivePath: prefix, relative: [], into: &result)
        return result
    }

    private static func info(_ path: String) throws -> stat {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SystemError("cannot be read", file: path) }
        return info
    }

    /// Lists the folder at `path` (whose `lstat` is `folderInfo`): each name's details come from
    /// `fstatat` relative to the open folder, so no path is looked up again from the top.
    private static func walk(
        _ path: String, info folderInfo: stat, archivePath: String, relative: [String],
        into result: inout [Entry]
    ) throws {
        result.append(
            Entry(
                archivePath: archivePath + "/", sourcePath: path, kind: .directory, size: 0,
                permissions: UInt32(folderInfo.st_mode) & 0o7777, modificationTime: Int64(folderInfo.st_mtim.tv_sec)))
        guard let folder = opendir(path) else { throw SystemError("cannot be listed", file: path) }
        defer { closedir(folder) }
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
        children.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        for (name, childInfo) in children {
            let child = path + "/" + name
            let childArchive = archivePath + "/" + name
            switch childInfo.st_mode & S_IFMT {
            case S_IFDIR:
                try walk(child, info: childInfo, archivePath: childArchive, relative: relative + [name], into: &result)
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
