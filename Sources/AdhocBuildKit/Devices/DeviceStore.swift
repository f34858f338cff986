import Foundation
import PlistKit
import SystemSupport

/// The device list's file (`devices.plist`, an XML plist): read by anyone, changed one process at a time.
///
/// A change (``update(_:)``) holds an exclusive `flock` on the folder that holds the file, never on
/// the file itself, whose inode every write replaces; it reads the list, applies the change, and when
/// the list changed writes it whole under a temporary name in the same folder, flushed to disk, then
/// renamed over the file, and flushes the folder. So processes that change the list at once (enrollment
/// answers arriving together, `devices add` beside them) each see the others' changes, and a reader
/// sees the old list or the new one, never a part. `flock` needs a local file system (not NFS).
public struct DeviceStore: Sendable {
    /// The store's file, as given.
    public let path: String

    public init(path: String) { self.path = path }

    /// The list the file holds; an empty list when there is no file yet.
    public func load() throws -> DeviceList {
        guard FileIO.kind(of: path) != nil else { return DeviceList() }
        let plist = try PropertyList(contentsOf: path)
        return try DeviceList(plist: plist.value, file: path)
    }

    /// Applies `change` to the list under the folder's lock and writes the list when it changed; when
    /// `change` throws, nothing is written and its error is thrown. Returns what `change` returned.
    @discardableResult
    public func update<T>(_ change: (inout DeviceList) throws -> T) throws -> T {
        guard case .file(let target) = try WriteDestination.of(path) else {
            throw Diagnostic.io("is not a regular file: the device list is replaced by renaming", file: path)
        }
        let folder = FileIO.split(target).folder
        return try DirectoryLock.withLock(folder) {
            FileIO.removeStaleTemporaries(in: folder)
            var list = try load()
            let before = list
            let result = try change(&list)
            if list != before { try write(list, folder: folder) }
            return result
        }
    }

    /// Writes `list` under a temporary name in `folder`, flushes it, renames it over the file and flushes `folder`.
    private func write(_ list: DeviceList, folder: String) throws {
        let data = try PropertyList(list.plistValue, format: .xml).data()
        let writer = try AtomicFileWriter(path: path)
        do {
            try data.withUnsafeBytes { try FileIO.writeAll(writer.fileDescriptor, $0) }
            guard fsync(writer.fileDescriptor) == 0 else { throw Diagnostic.system("cannot be written") }
            try writer.commit()
        } catch let error as Diagnostic {
            writer.abort()
            throw error.inFile(path)
        }
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }
}
