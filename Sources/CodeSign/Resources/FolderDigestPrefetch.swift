import Foundation
import SystemSupport

/// The digests of an app folder's files, taken while the folder is being listed: the verifier's
/// hashing starts with the listing, not once the listing is done and the seal parsed.
///
/// The listing hands over each folder's regular files (``listed(_:)``); once the main executable
/// is known (``begin(executable:type:)``) they are hashed in batches on `threads` threads, apart
/// from the executable (checked by its pages), the app's `_CodeSignature` folder and the places of
/// nested code (checked as code items). When the seal is parsed the check hands it over
/// (``confirm(against:isVersion2:)``): the batches hashed by then are compared with it at once, the
/// later ones by their jobs as they finish, and the check learns which files' content is confirmed
/// to be what the seal holds. It checks every other file itself, exactly as without a prefetch,
/// naming what is wrong. Jobs take a lock per batch, never per file.
// @unchecked Sendable: the mutable state is only used holding `lock`; the rest is set in init.
final class FolderDigestPrefetch: @unchecked Sendable {
    /// The folder holding the `.app`, opened once; keys are relative to it (`Name.app/...`).
    private let topDescriptor: Int32
    /// The bytes that start the key of every file in the app (`Name.app/`).
    private let appPrefix: [UInt8]
    private let threads: Int
    private let workers: WorkerPool
    private let lock = NSLock()
    /// Files listed before ``begin(executable:type:)``.
    private var held: [String] = []
    private var batches: [[String]] = []
    private var nextBatch = 0
    private var running = 0
    /// Read buffers of ended workers, for the next ones.
    private var spareBuffers: [UnsafeMutableRawBufferPointer] = []
    /// Batches hashed before ``confirm(against:isVersion2:)``, not compared yet (a nil digest: the
    /// file could not be read).
    private var hashed: [(keys: [String], digests: [[UInt8]?])] = []
    /// The seal, once the check has handed it over.
    private var seal: (files: [String: ResourceSeal], isVersion2: Bool, executable: String)?
    /// The paths (relative to the app) of the files whose digest is the sealed one.
    private var confirmed: [String] = []
    private var type: HashType = .sha256
    /// The executable's name (bytes), whose file the seal does not cover.
    private var executable: [UInt8] = []
    private var isStarted = false
    private var isCancelled = false

    /// The top-level folders of an app whose files belong to nested code (``CodeItemLocator/places``),
    /// and its signature's folder.
    private static let skippedFolders = (CodeItemLocator.places.map(\.folder) + ["_CodeSignature"]).map { Array($0.utf8) }

    /// A prefetch for the app folder `app`, nil when the folder holding it cannot be opened.
    init?(app: String, threads: Int) {
        let top = (app as NSString).deletingLastPathComponent
        topDescriptor = top.isEmpty ? AT_FDCWD : open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard topDescriptor >= 0 || topDescriptor == AT_FDCWD else { return nil }
        appPrefix = Array(((app as NSString).lastPathComponent + "/").utf8)
        self.threads = max(1, threads)
        // Room for a worker that is ending while the next one is started.
        workers = WorkerPool(label: "adhocbuild.folder-prefetch", capacity: self.threads * 2)
    }

    deinit {
        if topDescriptor >= 0 { close(topDescriptor) }
        for buffer in spareBuffers { buffer.deallocate() }
    }

    /// Whether the bundle at `bundleKey` is the app this prefetch lists.
    func covers(_ bundleKey: String) -> Bool { Array((bundleKey + "/").utf8) == appPrefix }

    /// The digest the files are hashed in (set by ``begin(executable:type:)``).
    var hashType: HashType {
        lock.lock()
        defer { lock.unlock() }
        return type
    }

    /// Takes the keys of files the listing found (called on the listing's thread).
    func listed(_ keys: [String]) {
        lock.lock()
        defer { lock.unlock() }
        guard !isCancelled else { return }
        if isStarted { queue(keys) } else { held += keys }
    }

    /// Starts hashing, in `type`, every file listed but the executable named `executable`.
    func begin(executable: String, type: HashType) {
        lock.lock()
        defer { lock.unlock() }
        guard !isCancelled, !isStarted else { return }
        isStarted = true
        self.type = type
        self.executable = Array(executable.utf8)
        queue(held)
        held = []
    }

    /// Whether the file at `key` is one the app's seal covers as a resource (see the type's description).
    private func isResource(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { bytes in
            guard bytes.count > appPrefix.count, bytes.starts(with: appPrefix) else { return false }
            let relative = UnsafeBufferPointer(rebasing: bytes[appPrefix.count...])
            guard let slash = relative.firstIndex(of: UInt8(ascii: "/")) else { return !relative.elementsEqual(executable) }
            let top = UnsafeBufferPointer(rebasing: relative[..<slash])
            return !FolderDigestPrefetch.skippedFolders.contains { top.elementsEqual($0) }
        }
    }

    /// Queues `keys` in batches and starts workers up to `threads` (holding `lock`).
    private func queue(_ keys: [String]) {
        var batch: [String] = []
        for key in keys where isResource(key) {
            batch.append(key)
            if batch.count == ResourceSealVerifier.batchFiles {
                batches.append(batch)
                batch = []
            }
        }
        if !batch.isEmpty { batches.append(batch) }
        while running < threads && nextBatch < batches.count {
            running += 1
            workers.submit { self.work() }
        }
    }

    /// Hashes batch after batch until none is left; a later batch starts another worker.
    private func work() {
        lock.lock()
        // A buffer a worker before this one used: a fresh one is a new mapping, whose pages the
        // kernel zeroes on first touch (workers end and start again as the listing goes).
        let buffer =
            spareBuffers.popLast()
            ?? UnsafeMutableRawBufferPointer.allocate(byteCount: BundleFileReader.chunkSize, alignment: FileIO.readBufferAlignment)
        lock.unlock()
        while true {
            lock.lock()
            guard !isCancelled, nextBatch < batches.count else {
                running -= 1
                spareBuffers.append(buffer)
                return lock.unlock()
            }
            let keys = batches[nextBatch]
            nextBatch += 1
            let type = self.type
            lock.unlock()
            let digests = keys.map { FolderDigestPrefetch.digest(of: $0, in: topDescriptor, type: type, buffer: buffer) }
            lock.lock()
            let seal = self.seal
            if seal == nil { hashed.append((keys, digests)) }
            lock.unlock()
            if let seal { compare(keys, digests, with: seal) }
        }
    }

    /// The digest of the regular file at `key` (a link is not followed), read through `buffer`; nil
    /// when it cannot be read.
    private static func digest(of key: String, in top: Int32, type: HashType, buffer: UnsafeMutableRawBufferPointer) -> [UInt8]? {
        let fd = openat(top, key, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let stream = DigestStream(type)
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            stream.update(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            // A short read of a regular file is its end on Linux.
            if count < buffer.count { break }
        }
        return stream.finish()
    }

    /// Compares a batch's digests with the seal and records the files confirmed: those whose seal
    /// checks a plain file's content by this one digest (``ResourceSealVerifier/soleDigest(_:type:isVersion2:)``).
    private func compare(
        _ keys: [String], _ digests: [[UInt8]?], with seal: (files: [String: ResourceSeal], isVersion2: Bool, executable: String)
    ) {
        var matching: [String] = []
        for (key, digest) in zip(keys, digests) {
            guard let digest else { continue }
            let path = String(decoding: key.utf8.dropFirst(appPrefix.count), as: UTF8.self)
            guard path != seal.executable, let entry = seal.files[path], entry.symlink == nil,
                ResourceSealVerifier.soleDigest(entry, type: type, isVersion2: seal.isVersion2) == digest
            else { continue }
            matching.append(path)
        }
        lock.lock()
        confirmed += matching
        lock.unlock()
    }

    /// Hands over the seal the check compares the app's resources with (`files`, by path relative
    /// to the app), waits for every batch of the files listed (the listing is over), and returns
    /// the paths of the files confirmed to hold what the seal says: each a regular file the listing
    /// found, other than `executable` (the check's), hashed now, whose seal checks its content by
    /// exactly that digest. Called once; a prefetch that did not start confirms none.
    func confirm(against files: [String: ResourceSeal], isVersion2: Bool, excluding executable: String) -> [String] {
        lock.lock()
        guard isStarted, !isCancelled, seal == nil else {
            lock.unlock()
            return []
        }
        let seal = (files, isVersion2, executable)
        self.seal = seal
        let pending = hashed
        hashed = []
        lock.unlock()
        for (keys, digests) in pending { compare(keys, digests, with: seal) }
        try? workers.wait()  // the jobs throw nothing
        lock.lock()
        defer { lock.unlock() }
        return confirmed
    }

    /// Skips the batches not started and waits for those being hashed (the check is over, or the
    /// app is not of a shape this can help).
    func finish() {
        lock.lock()
        isCancelled = true
        held = []
        lock.unlock()
        try? workers.wait()  // the jobs throw nothing
    }
}
