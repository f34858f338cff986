import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// Reads the files of an app for the verifier, wherever the app is stored: whole (for the small files
/// a signature binds and for executables), digested in pieces (for sealed resources, on disk or in
/// an ipa), and symbolic links by their target.
///
/// What was started ahead for the app (its seal's parse, its resources' digests) is taken from
/// here: the results are the ones reading and parsing directly gives.
struct BundleFileReader: Sendable {
    let storage: BundleStorage
    /// The folder holding the `.app` when the app is a folder on disk, else nil (an ipa).
    let folderTop: String?
    /// The app's CodeResources, parsed ahead.
    let preparsed: PreparsedCodeResources?
    /// The app's sealed resources, digested ahead (an ipa).
    let prefetch: ResourceDigestPrefetch?
    /// The app's files, digested as its folder was listed (a folder on disk).
    let folderPrefetch: FolderDigestPrefetch?
    /// The limits the plists of the app (Info.plist, CodeResources, entitlements) are read with.
    let limits: PlistLimits
    /// Digests of the app's files taken as they were copied or unpacked (a folder only): a file still
    /// as it was hashed, or left in the ipa the folder was unpacked from, is not read again.
    let known: DigestCache?
    /// How many bytes a streamed digest reads at a time.
    static let chunkSize = 1 << 20

    init(
        storage: BundleStorage, isArchive: Bool, limits: PlistLimits, preparsed: PreparsedCodeResources? = nil,
        prefetch: ResourceDigestPrefetch? = nil, folderPrefetch: FolderDigestPrefetch? = nil, known: DigestCache? = nil
    ) {
        self.storage = storage
        self.known = known
        self.limits = limits
        folderTop = isArchive ? nil : (storage.location as NSString).deletingLastPathComponent
        self.preparsed = preparsed ?? prefetch?.codeResources
        self.prefetch = prefetch
        self.folderPrefetch = folderPrefetch
    }

    /// The seal in the CodeResources bytes `data`, as the verifier reads it (``CodeResources/init(verifying:limits:)``):
    /// the parse started ahead when it was of the same bytes, else a parse now.
    func codeResources(_ data: Data) throws -> CodeResources {
        if let preparsed, preparsed.data == data { return try preparsed.value.get() }
        return try CodeResources(verifying: data, limits: limits)
    }

    func file(_ key: String) -> BundleFile? { storage.files[key] }

    /// The bytes of the file at `key`; errors are one line naming it.
    func read(_ key: String) throws -> Data {
        do {
            return try storage.read(key)
        } catch let error as Diagnostic {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(error.message)")
        } catch {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(FoundationError.line(error))")
        }
    }

    /// The target of the symbolic link at `key`.
    func linkTarget(_ key: String) throws -> String {
        if let top = folderTop {
            do {
                return try FileManager.default.destinationOfSymbolicLink(atPath: top.isEmpty ? key : top + "/" + key)
            } catch {
                throw Diagnostic.codeSign(.unreadable, "cannot read the link: \(FoundationError.reason(error))")
            }
        }
        return String(decoding: try read(key), as: UTF8.self)
    }

    /// The executable at `key`, mapped: where it is for a folder, inflated into an unlinked temporary
    /// file for an ipa. Errors are one line naming it.
    func map(_ key: String) throws -> MappedExecutable {
        do {
            if let top = folderTop { return try MappedExecutable(path: top.isEmpty ? key : top + "/" + key) }
            return try MappedExecutable.spooling { body in try storage.readChunks(key, chunkSize: BundleFileReader.chunkSize, body) }
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            throw error
        } catch let error as Diagnostic {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(error.message)")
        } catch {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(FoundationError.line(error))")
        }
    }

    /// The digests of the file at `key`, one per type, reading it once in pieces of at most
    /// ``chunkSize`` bytes (from disk, or inflated from the ipa), so memory stays bounded by one
    /// buffer per worker whatever the file's size; or the same, computed ahead by ``prefetch``, or
    /// as the file was copied or unpacked (``known``).
    func digests(_ key: String, types: [HashType]) throws -> [HashType: [UInt8]] {
        if let computed = prefetch?.take(key, types: types) { return try computed.get() }
        if let known, let top = folderTop,
            let digests = known.knownDigests(
                at: top.isEmpty ? key : top + "/" + key, types: types, listedAsLeft: storage.isLeftInArchive(key))
        {
            return digests
        }
        return try computeDigests(key, types: types)
    }

    /// The digests of the file at `key`, read now (see ``digests(_:types:)``).
    func computeDigests(_ key: String, types: [HashType]) throws -> [HashType: [UInt8]] {
        let streams = types.map { DigestStream($0) }
        do {
            try storage.readChunks(key, chunkSize: BundleFileReader.chunkSize) { buffer in
                for stream in streams { stream.update(buffer) }
            }
        } catch let error as Diagnostic {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(error.message)")
        } catch {
            throw Diagnostic.codeSign(.unreadable, "cannot be read: \(FoundationError.line(error))")
        }
        return Dictionary(uniqueKeysWithValues: streams.map { ($0.type, $0.finish()) })
    }
}
