import Foundation
import SystemSupport

/// The digests of an app folder's files, taken while the folder is being listed: the verifier's
/// hashing starts with the listing, not once the listing is done and the seal parsed.
///
/// The listing hands over each folder's regular files (``listed(_:)``); once the main executable
/// is known (``begin(executable:type:)``) they are hashed in batches on `threads` threads, apart
/// from the executable (checked by its pages), the app's `_CodeSignature` folder and the places of
/// nested code (checked as code items). When the seal is parsed the check hands it over
/// (``confirm(against:isVersion2:excluding:)``): the batches hashed by then are compared with it at
/// once, the later ones by their jobs as they finish, and the check learns what each file hashed
/// is (``Outcome``): sealed and confirmed, sealed but not confirmed, or not sealed. It checks the
/// files not confirmed itself, exactly as without a prefetch, naming what is wrong. Jobs take a
/// lock per batch, never per file.
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
    /// Batches hashed before ``confirm(against:isVersion2:excluding:)``, not compared yet (a nil
    /// digest: the file could not be read).
    private var hashed: [(keys: [String], digests: [[UInt8]?])] = []
    /// The seal, once the check has handed it over.
    private var seal: (files: [String: ResourceSeal], isVersion2: Bool, executable: String)?
    /// What the hashed files are, against the seal, so far.
    private var outcome = Outcome()
    /// The digest the files are hashed in (set by ``begin(executable:type:)``).
    private var type: HashType = .sha256
    /// The executable's name (bytes), whose file the seal does not cover.
    private var executable: [UInt8] = []
    private var started = false
    private var isCancelled = false

    /// What the prefetch found of the files it hashed (other than the check's executable), against the seal.
    struct Outcome: Sendable {
        /// How many of them the seal names.
        var sealed = 0
        /// How many of those hold what the seal says: a seal that checks a plain file's content by
        /// one digest, of the type hashed, and that digest.
        var confirmed = 0
        /// The paths (relative to the app) of those the seal names but that are not confirmed:
        /// another digest, a file that could not be read, or another kind of seal.
        var unconfirmed: [String] = []
        /// The paths of those the seal does not name.
        var unsealed: [String] = []
    }

    /// How many bytes a worker reads at a time: most of an app's files are read whole, and a large
    /// one is hashed while the piece the kernel just copied is still in the core's L2 cache (1 MiB
    /// pieces filled it, so the copy and the hash each went out to L3).
    static let bufferSize = 256 << 10

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

    /// Takes the keys of files the listing found (called on the listing's thread).
    func listed(_ keys: [String]) {
        lock.lock()
        defer { lock.unlock() }
        guard !isCancelled else { return }
        if started { queue(keys) } else { held += keys }
    }

    /// Starts hashing, in `type`, every file listed but the executable named `executable`.
    func begin(executable: String, type: HashType) {
        lock.lock()
        defer { lock.unlock() }
        guard !isCancelled, !started else { return }
        started = true
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
            return isResource(relative: UnsafeBufferPointer(rebasing: bytes[appPrefix.count...]))
        }
    }

    /// Whether the regular file at `path` (relative to the app) is one this hashes once the listing
    /// names it: a file the check then leaves to ``confirm(against:isVersion2:excluding:)``.
    func hashes(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { isResource(relative: $0) }
    }

    private func isResource(relative: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let slash = relative.firstIndex(of: UInt8(ascii: "/")) else {
            return !relative.isEmpty && !relative.elementsEqual(executable)
        }
        let top = UnsafeBufferPointer(rebasing: relative[..<slash])
        return !FolderDigestPrefetch.skippedFolders.contains { top.elementsEqual($0) }
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
            ?? UnsafeMutableRawBufferPointer.allocate(byteCount: FolderDigestPrefetch.bufferSize, alignment: FileIO.readBufferAlignment)
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
        guard FileIO.readToEnd(fd, through: buffer, stream.update) == 0 else { return nil }
        return stream.finish()
    }

    /// Compares a batch's digests with the seal and adds what it finds to ``outcome``.
    private func compare(
        _ keys: [String], _ digests: [[UInt8]?], with seal: (files: [String: ResourceSeal], isVersion2: Bool, executable: String)
    ) {
        var found = Outcome()
        for (key, digest) in zip(keys, digests) {
            let path = String(decoding: key.utf8.dropFirst(appPrefix.count), as: UTF8.self)
            guard path != seal.executable else { continue }
            guard let entry = seal.files[path] else {
                found.unsealed.append(path)
                continue
            }
            found.sealed += 1
            if let digest, entry.symlink == nil, ResourceSealVerifier.soleDigest(entry, type: type, isVersion2: seal.isVersion2) == digest {
                found.confirmed += 1
            } else {
                found.unconfirmed.append(path)
            }
        }
        lock.lock()
        outcome.sealed += found.sealed
        outcome.confirmed += found.confirmed
        outcome.unconfirmed += found.unconfirmed
        outcome.unsealed += found.unsealed
        lock.unlock()
    }

    /// Whether hashing has begun (``begin(executable:type:)``) and was not cancelled.
    var isStarted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return started && !isCancelled
    }

    /// Hands over the seal the check compares the app's resources with (`files`, by path relative
    /// to the app), waits for every batch of the files listed (the listing is over), and returns
    /// what the hashed files are against it: every file the listing named for which ``hashes(_:)``
    /// is true, but `executable` (the check's). Nil when hashing did not begin or was cancelled:
    /// the check then checks every file itself. Called once.
    func confirm(against files: [String: ResourceSeal], isVersion2: Bool, excluding executable: String) -> Outcome? {
        lock.lock()
        guard started, !isCancelled, seal == nil else {
            lock.unlock()
            return nil
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
        return outcome
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
