import Foundation
import IPAKit
import SystemSupport

/// Reads the files of an app for the verifier, wherever the app is stored: whole (for the small files
/// a signature binds and for executables), digested in pieces (for sealed resources on disk), and
/// symbolic links by their target.
struct BundleFileReader: Sendable {
    let storage: BundleStorage
    /// The folder holding the `.app` when the app is a folder on disk, else nil (an ipa).
    let folderTop: String?
    /// How many bytes a streamed digest reads at a time.
    static let chunkSize = 1 << 20
    /// Entries of an ipa above this size are read whole one at a time (libzip entries are not streamed here).
    static let bigEntrySize: Int64 = 8 << 20
    /// Held while a big ipa entry is in memory, so the workers never hold more than one.
    let bigEntryGate = DispatchSemaphore(value: 1)

    init(storage: BundleStorage, isArchive: Bool) {
        self.storage = storage
        folderTop = isArchive ? nil : (storage.location as NSString).deletingLastPathComponent
    }

    func file(_ key: String) -> BundleFile? { storage.files[key] }

    /// The bytes of the file at `key`; errors are one line naming it.
    func read(_ key: String) throws -> Data {
        do {
            return try storage.read(key)
        } catch let error as any DiagnosticError {
            throw CodeSignError("cannot be read: \(error.problem)")
        } catch {
            throw CodeSignError("cannot be read: \(error)")
        }
    }

    /// The target of the symbolic link at `key`.
    func linkTarget(_ key: String) throws -> String {
        if let top = folderTop {
            do {
                return try FileManager.default.destinationOfSymbolicLink(atPath: top.isEmpty ? key : top + "/" + key)
            } catch {
                throw CodeSignError("cannot read the link: \(error.localizedDescription)")
            }
        }
        return String(decoding: try read(key), as: UTF8.self)
    }

    /// The digests of the file at `key`, one per type, reading it once; a file on disk is read in
    /// pieces of ``chunkSize`` bytes so memory stays bounded whatever its size.
    func digests(_ key: String, types: [HashType]) throws -> [HashType: [UInt8]] {
        let streams = types.map { DigestStream($0) }
        if let top = folderTop {
            let path = top.isEmpty ? key : top + "/" + key
            guard let handle = FileHandle(forReadingAtPath: path) else { throw CodeSignError("cannot be read") }
            defer { try? handle.close() }
            while true {
                let chunk: Data
                do {
                    chunk = try handle.read(upToCount: BundleFileReader.chunkSize) ?? Data()
                } catch {
                    throw CodeSignError("cannot be read: \(error.localizedDescription)")
                }
                if chunk.isEmpty { break }
                chunk.withUnsafeBytes { buffer in
                    for stream in streams { stream.update(buffer) }
                }
            }
        } else {
            let isBig = (file(key)?.size ?? 0) > BundleFileReader.bigEntrySize
            if isBig { bigEntryGate.wait() }
            defer { if isBig { bigEntryGate.signal() } }
            let data = try read(key)
            data.withUnsafeBytes { buffer in
                for stream in streams { stream.update(buffer) }
            }
        }
        return Dictionary(uniqueKeysWithValues: streams.map { ($0.type, $0.finish()) })
    }
}
