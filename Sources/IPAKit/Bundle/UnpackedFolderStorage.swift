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
    /// The folder holding the `.app`: a storage path below it is a file's path.
    private let top: String
    var location: String { folder.location }

    /// Indexes `app` (a `.app` folder unpacked with `carried`) as `<Name>.app/...`.
    init(app: String, carried: CarriedEntries) throws {
        folder = try FolderStorage(app: app)
        self.carried = carried
        top = (app as NSString).deletingLastPathComponent
        var index = folder.files
        for left in carried.leftInArchive(under: app) {
            let key = (app as NSString).lastPathComponent + left.path.dropFirst(app.count)
            index[key] = BundleFile(size: left.size, isExecutable: left.permissions & 0o111 != 0, isSymlink: false, isDirectory: false)
        }
        files = index
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
