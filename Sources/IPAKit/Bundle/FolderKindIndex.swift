import Foundation
import SystemSupport

/// The index of an app folder that says only what kind each entry is, from the folder listings'
/// `d_type`: no `lstat` per entry (a system call per file, which cost a reader that opens every file
/// anyway, the signature verifier, as much as a tenth of its time on an app of thousands of files).
///
/// It holds the same paths as ``BundleTree``'s walk, with the same kinds and links, but a file's
/// ``BundleFile/size`` is ``BundleFile/unknownSize`` and ``BundleFile/isExecutable`` false (for
/// files and folders). Anything out of the ordinary gives nil, and the caller walks with
/// ``BundleTree`` instead, which names the problem exactly as it always did: a folder that cannot
/// be listed, a name that is not UTF-8, an entry of another kind, a link that leads outside, or
/// two names that are one key (the same text in two Unicode normalizations, whose order decides).
enum FolderKindIndex {
    /// The index of `root` with every path under `prefix` (itself as `prefix`), or nil (see above).
    /// `listedFiles`, when given, is handed the keys of each folder's regular files as soon as the
    /// folder is listed, before its subfolders are (and before the index is known to be whole).
    static func index(of root: String, prefix: String, listedFiles: (([String]) -> Void)? = nil) -> [String: BundleFile]? {
        var rootInfo = stat()
        guard lstat(root, &rootInfo) == 0, rootInfo.st_mode & S_IFMT == S_IFDIR else { return nil }
        let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var index: [String: BundleFile] = [prefix: folder]
        // Room for a large app, so the table is not grown and rehashed as it fills.
        index.reserveCapacity(8192)
        guard Walk(root: root, listedFiles: listedFiles).add(descriptor, path: root, key: prefix, relative: [], into: &index)
        else { return nil }
        return index
    }

    private static let folder = BundleFile(size: 0, isExecutable: false, isSymlink: false, isDirectory: true)
    private static let file = BundleFile(size: BundleFile.unknownSize, isExecutable: false, isSymlink: false, isDirectory: false)

    private struct Walk {
        /// The folder indexed, which every link must stay in.
        let root: String
        /// Told the keys of each folder's regular files once the folder is listed.
        let listedFiles: (([String]) -> Void)?

        /// Adds the entries of the folder open as `descriptor` (at `path`, `key` in the index,
        /// `relative` below the root) and of its subfolders, and closes it; false when anything is
        /// out of the ordinary.
        func add(
            _ descriptor: Int32, path: String, key: String, relative: [String], into index: inout [String: BundleFile]
        ) -> Bool {
            defer { close(descriptor) }
            guard let listing = try? FileIO.listing(of: descriptor, folder: path) else { return false }
            // The folder's own entries first, its subfolders after: its files are handed on before
            // the walk goes deeper.
            var files: [String] = []
            var folders: [(name: String, key: String)] = []
            for listed in listing {
                let entry = listed.name
                if BundleTree.ignoredNames.contains(entry) { continue }
                var childKey = key
                childKey.reserveCapacity(key.utf8.count + 1 + entry.utf8.count)
                childKey += "/"
                childKey += entry
                switch listed.type == DT_UNKNOWN ? Self.kind(of: entry, in: descriptor) : listed.type {
                case UInt8(DT_REG):
                    guard index.updateValue(FolderKindIndex.file, forKey: childKey) == nil else { return false }
                    if listedFiles != nil { files.append(childKey) }
                case UInt8(DT_DIR):
                    guard index.updateValue(FolderKindIndex.folder, forKey: childKey) == nil else { return false }
                    folders.append((entry, childKey))
                case UInt8(DT_LNK):
                    let link = path + "/" + entry
                    guard let target = try? BundleTree.linkTarget(link),
                        (try? BundleTree.checkInside(target, linkFolder: relative, link: link)) != nil,
                        (try? BundleTree.checkResolvesInside(link, target: target, top: root)) != nil
                    else { return false }
                    let file = BundleFile(size: Int64(target.utf8.count), isExecutable: true, isSymlink: true, isDirectory: false)
                    guard index.updateValue(file, forKey: childKey) == nil else { return false }
                default:
                    return false
                }
            }
            if let listedFiles, !files.isEmpty { listedFiles(files) }
            for (entry, childKey) in folders {
                let child = openat(descriptor, entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0, add(child, path: path + "/" + entry, key: childKey, relative: relative + [entry], into: &index)
                else { return false }
            }
            return true
        }

        /// The `d_type` of `name` in the folder open as `descriptor`, from its `lstat`, for a file
        /// system whose listings do not say (0, `DT_UNKNOWN`, when it cannot be read).
        private static func kind(of name: String, in descriptor: Int32) -> UInt8 {
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return UInt8(DT_UNKNOWN) }
            switch info.st_mode & S_IFMT {
            case S_IFREG: return UInt8(DT_REG)
            case S_IFDIR: return UInt8(DT_DIR)
            case S_IFLNK: return UInt8(DT_LNK)
            default: return UInt8(DT_UNKNOWN)
            }
        }
    }
}
