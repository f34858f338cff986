import Foundation
import SystemSupport

extension ZipArchiveReader {
    /// Unpacks every entry into `folder` (which must exist): folders, then files in pieces with
    /// their permissions, then symbolic links last, so no entry is ever written through a link the
    /// archive made. Entry names were checked to be plain relative paths when the archive was opened.
    /// Errors are one line naming the archive and the entry.
    public func extract(to folder: String) throws {
        var links: [(path: String, target: String)] = []
        for entry in entries where entry.isDirectory {
            try makeFolder(folder + "/" + entry.name, for: entry)
        }
        for entry in entries where !entry.isDirectory {
            let target = folder + "/" + entry.name
            try makeFolder((target as NSString).deletingLastPathComponent, for: entry)
            if entry.isSymlink {
                links.append((target, String(decoding: try data(entry), as: UTF8.self)))
                continue
            }
            let mode = mode_t((entry.mode ?? 0o644) & 0o777)
            let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
            guard fd >= 0 else { throw Diagnostic.ipa("cannot be unpacked: \(SystemError.describe(errno))", file: path, entry: entry.name) }
            defer { close(fd) }
            try readChunks(entry, chunkSize: 1 << 20) { try FileIO.writeAll(fd, $0) }
            fchmod(fd, mode)
        }
        for link in links {
            guard symlink(link.target, link.path) == 0 else {
                throw Diagnostic.ipa(
                    "cannot be unpacked as a link: \(SystemError.describe(errno))", file: path,
                    entry: String(link.path.dropFirst(folder.count + 1)))
            }
        }
    }

    /// Makes the folder `path` (and those above it) for `entry`; a failure names the archive and the entry.
    private func makeFolder(_ path: String, for entry: ZipArchiveReader.Entry) throws {
        // Under the lock an interrupt takes: a work folder it removed is not made again above `path`.
        do { try WorkFiles.creating { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } } catch {
            throw Diagnostic.ipa("cannot be unpacked: \(FoundationError.reason(error))", file: self.path, entry: entry.name)
        }
    }
}
