import Foundation

/// What tells one version of a regular file from another without reading it: its device, inode,
/// size and change time. Any write, rename over it or `chmod` changes the change time (or the
/// inode), so a file whose identity is unchanged still holds the bytes it held when recorded.
public struct FileIdentity: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var changed: Int64
    public var changedNanoseconds: Int64

    /// The identity of the regular file at `path` (not followed if a link); nil for anything else.
    public init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(info)
    }

    /// The identity `info` (from `stat`, `lstat` or `fstat`) describes.
    public init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        changed = Int64(info.st_ctim.tv_sec)
        changedNanoseconds = Int64(info.st_ctim.tv_nsec)
    }
}
