import Foundation
import SystemSupport

/// What signing an `.xcarchive` copies besides its app (dSYMs, BCSymbolMaps, its Info.plist): files,
/// folders and links only. A FIFO there made the copy wait forever, a device file would be read as
/// one; each is refused naming it, as the packager refuses one in the app.
enum ArchiveContentsCheck {
    /// Throws naming the first thing under `path` (itself included, links not followed) that is not a
    /// file, a folder or a symbolic link.
    static func check(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw Diagnostic.system("cannot be read", file: path, code: errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFLNK: return
        case S_IFDIR: for name in try FileIO.names(in: path) { try check(path + "/" + name) }
        default: throw Diagnostic.io("is neither a file, a folder nor a symbolic link", file: path)
        }
    }
}
