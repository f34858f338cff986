import Foundation
import PlistKit
import SystemSupport

/// An app folder unpacked from an ipa with files left in the archive (``ZipArchiveReader/LeavingRule``),
/// seen whole: the folder's own files, and each file left in the archive at its place (listed with
/// its entry's size and mode, read from the archive), unless something was put in its place.
// @unchecked Sendable: both parts are immutable here and Sendable themselves in what they do.
final class UnpackedFolderStorage: BundleStorage, @unchecked Sendable {
    let folder: FolderStorage
    let carried: CarriedEntries
    let files: [String: BundleFile]
    /// The storage paths of the files left in the archive (and nothing in their place when indexed).
    private let leftKeys: Set<String>
    /// The folder holding the `.app`: a storage path below it is a file's path.
    private let top: String
    var location: String { folder.location }

    /// Indexes `app` (a `.app` folder unpacked with `carried`) as `<Name>.app/...`.
    init(app: String, carried: CarriedEntries) throws {
        let folder = try FolderStorage(app: app)
        let top = (app as NSString).deletingLastPathComponent
        self.folder = folder
        self.carried = carried
        self.top = top
        var index = folder.files
        let name = (app as NSString).lastPathComponent
        // What the folder's index holds is all that is there.
        let present = Set(folder.files.keys.map { top.isEmpty ? $0 : top + "/" + $0 })
        var left = Set<String>()
        for file in carried.leftInArchive(under: app, present: present) {
            let key = name + file.path.dropFirst(app.count)
            index[key] = BundleFile(size: file.size, isExecutable: file.permissions & 0o111 != 0, isSymlink: false, isDirectory: false)
            left.insert(key)
        }
        files = index
        leftKeys = left
    }

    /// The archive entry the file at storage path `path` was left as, if it was.
    private func leftEntry(_ path: String) -> ZipArchiveReader.Entry? {
        folder.files[path] == nil ? carried.leftEntry(at: top.isEmpty ? path : top + "/" + path) : nil
    }

    func read(_ path: String) throws -> Data {
        guard let entry = leftEntry(path) else { return try folder.read(path) }
        var data = Data()
        try carried.readLeft(entry, chunkSize: 1 << 20) { data.append(contentsOf: $0) }
        return data
    }

    func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let entry = leftEntry(path) else { return try folder.readChunks(path, chunkSize: chunkSize, body) }
        try carried.readLeft(entry, chunkSize: chunkSize, body)
    }

    func place(of path: String) -> (file: String, entry: String?) { folder.place(of: path) }

    func isLeftInArchive(_ path: String) -> Bool { leftKeys.contains(path) }
}

extension AppPackage {
    /// Opens the `.app` folder `app`, unpacked from an ipa with `carried` leaving files in the archive,
    /// as the whole app it stands for (``UnpackedFolderStorage``). Its plists are read with `limits`.
    public static func open(unpackedApp app: String, carried: CarriedEntries, limits: PlistLimits = .default) throws -> AppPackage {
        let storage = try UnpackedFolderStorage(app: app, carried: carried)
        let bundle = try AppBundle(storage: storage, root: (app as NSString).lastPathComponent, plistLimits: limits)
        return AppPackage(path: app, app: bundle, extras: [], isArchive: false)
    }
}
