import Foundation
import SystemSupport

/// Files of an app compressed before the app is final (while the rest of it is being signed), each
/// with the identity it had when it was compressed: packaging the app takes a file still so as it
/// was compressed, and compresses any other afresh (``IPAPackager/Options/ahead``).
///
/// The compressed bytes wait in a spool beside the ipa to be written, which packaging goes on
/// using for what it compresses itself.
public final class CompressedAhead: Sendable {
    let spool: Spool
    private let files: [String: (identity: FileIdentity, entry: PreparedEntry)]

    init(spool: Spool, files: [String: (identity: FileIdentity, entry: PreparedEntry)]) {
        self.spool = spool
        self.files = files
    }

    /// How many files were compressed ahead.
    public var count: Int { files.count }

    /// The compressed file at `path`, when it is still the file that was compressed: when its
    /// identity now (`current`, as the packager's walk found it, or else looked up) is the one it had.
    func prepared(for path: String, current: FileIdentity? = nil) -> PreparedEntry? {
        guard let file = files[path], (current ?? FileIdentity(path: path)) == file.identity else { return nil }
        return file.entry
    }
}

// @unchecked Sendable: PreparedEntry holds plain values only (the spool's offsets and sizes).
extension PreparedEntry: @unchecked Sendable {}

extension IPAPackager {
    /// Compresses the regular files at `paths` with these options, into a spool in `folder` (the
    /// folder the ipa will be written in), for packaging them later (``Options/ahead``). A path that
    /// is not a regular file is left out; errors are one line naming the file.
    public func compressAhead(_ paths: [String], spoolIn folder: String) throws -> CompressedAhead {
        let spool = try Spool(in: folder)
        guard options.level > 0 else { return CompressedAhead(spool: spool, files: [:]) }
        var entries: [BundleTree.Entry] = []
        var identities: [FileIdentity] = []
        for path in paths {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            entries.append(
                BundleTree.Entry(
                    archivePath: path, sourcePath: path, kind: .file, size: Int64(info.st_size), permissions: 0, modificationTime: 0))
            identities.append(FileIdentity(info))
        }
        let total = entries.reduce(Int64(0)) { $0 + $1.size }
        var quiet = self
        quiet.options.progress = nil
        let compressed = try quiet.compress(entries, indices: Array(entries.indices), total: total, spool: spool)
        var files: [String: (identity: FileIdentity, entry: PreparedEntry)] = [:]
        files.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            if let prepared = compressed[index] { files[entry.sourcePath] = (identities[index], prepared) }
        }
        return CompressedAhead(spool: spool, files: files)
    }
}
