/// What the packager needs from an archive writer: ``ZipArchiveWriter`` (libzip) or
/// ``DirectArchiveWriter`` (its own framing, without ZIP64).
protocol ArchiveWriting: AnyObject {
    /// Adds a directory entry (`name` ends with `/`).
    func addDirectory(_ name: String, permissions: UInt32, dosTime: DOSTime) throws
    /// Adds a symbolic link, stored as its target path.
    func addSymlink(_ name: String, target: String, dosTime: DOSTime) throws
    /// Adds the `size` bytes of `file`, stored.
    func addStoredFile(_ name: String, from file: String, size: Int64, permissions: UInt32, dosTime: DOSTime) throws
    /// Adds a file whose data was prepared beforehand and sits in `spool`.
    func addPrepared(_ name: String, entry: PreparedEntry, spool: any PreparedBytes, permissions: UInt32, dosTime: DOSTime) throws
    /// Writes the archive out.
    func close() throws
    /// Abandons the archive without finishing it.
    func discard()
}

extension ArchiveWriting {
    /// Adds `entries` in order — folders and links here, files through `addFile` with the
    /// entry's index and DOS time — and closes the archive; on any failure it is abandoned.
    func add(_ entries: [BundleTree.Entry], addFile: (Int, BundleTree.Entry, DOSTime) throws -> Void) throws {
        var committed = false
        defer { if !committed { discard() } }
        for (index, entry) in entries.enumerated() {
            let time = DOSTime(unixTime: entry.modificationTime)
            switch entry.kind {
            case .directory: try addDirectory(entry.archivePath, permissions: entry.permissions, dosTime: time)
            case .symlink(let target): try addSymlink(entry.archivePath, target: target, dosTime: time)
            case .file: try addFile(index, entry, time)
            }
        }
        try close()
        committed = true
    }
}
