import Foundation
import IPAKit
import PlistKit
import SystemSupport

/// The digests of an app's sealed resources, computed ahead of the check that compares them.
///
/// In an ipa the item check first inflates the main executable on its own thread, which takes
/// longer than anything else there; started as soon as the archive is open, this hashes the
/// resources on the other cores meanwhile, and the check then finds them done.
///
/// Each file is hashed once, by whoever comes first: a job of this prefetch, or the check itself
/// when it asks before any job took the file (``take(_:types:)`` returns nil, and the check
/// computes the digests as it would without a prefetch). A check that asks while a job hashes the
/// file waits for it. Either way the result, digests or error, is the one reading the file gives.
// @unchecked Sendable: `files` and `isCancelled` are only used holding `states`; the rest is set in init.
final class ResourceDigestPrefetch: @unchecked Sendable {
    /// The app's CodeResources, parsed on another thread.
    let codeResources: PreparsedCodeResources
    private let reader: BundleFileReader
    private let states = NSCondition()
    /// The files listed or asked for, with the types their seal names.
    private var files: [String: (types: [HashType], state: State)] = [:]
    private var isCancelled = false
    /// The batches of files to hash, largest first, and how many were handed out.
    private var batches: [[String]] = []
    private var nextBatch = 0
    private let workers: WorkerPool

    private enum State {
        /// Listed for a job, not started.
        case waiting
        case hashing
        case done(Result<[HashType: [UInt8]], any Error>)
        /// Asked for before a job took it: the asker hashes it.
        case taken
    }

    /// Starts on the app's resources, on `threads` threads (at least one; one fewer than the cores
    /// leaves a core to the executable), when its seal is a plain file and it names an executable
    /// (the check compares no resources otherwise); nil when it does not.
    static func start(app: AppBundle, isArchive: Bool, threads: Int, limits: PlistLimits) -> ResourceDigestPrefetch? {
        let key = app.root + "/_CodeSignature/CodeResources"
        guard let executable = app.executableName, !executable.isEmpty,
            let file = app.storage.files[key], !file.isDirectory, !file.isSymlink,
            let data = try? app.storage.read(key)
        else { return nil }
        return ResourceDigestPrefetch(app: app, executable: executable, data: data, isArchive: isArchive, threads: threads, limits: limits)
    }

    /// The first thread parses the seal and lists the files, then starts the others; each then
    /// takes batch after batch.
    private init(app: AppBundle, executable: String, data: Data, isArchive: Bool, threads: Int, limits: PlistLimits) {
        codeResources = PreparsedCodeResources(data, limits: limits)
        reader = BundleFileReader(storage: app.storage, isArchive: isArchive, limits: limits)
        let root = app.root
        // Room for every thread's job at once: the first submits the others and never waits.
        workers = WorkerPool(label: "adhocbuild.resource-prefetch", capacity: max(1, threads))
        workers.submit { [self] in
            guard let resources = try? codeResources.value.get() else { return }
            list(plan(resources, root: root, executable: executable))
            for _ in 1..<max(1, threads) { workers.submit { self.work() } }
            work()
        }
    }

    /// The files the check will hash and with which types: those sealed by a hash that are plain
    /// files of the app, less its executable and its `_CodeSignature` folder (which it leaves out).
    private func plan(_ resources: CodeResources, root: String, executable: String) -> [(key: String, types: [HashType], size: Int64)] {
        let isVersion2 = resources.isVersion2
        var planned: [(key: String, types: [HashType], size: Int64)] = []
        for (path, seal) in isVersion2 ? resources.files2 : resources.files {
            guard path != executable, !path.hasPrefix("_CodeSignature/"), seal.symlink == nil else { continue }
            let key = root + "/" + path
            guard let file = reader.file(key), !file.isDirectory, !file.isSymlink else { continue }
            let types = ResourceSealVerifier.expectedHashes(seal, isVersion2: isVersion2).map(\.0)
            if !types.isEmpty { planned.append((key, types, file.size)) }
        }
        return planned
    }

    /// Lists `planned` and cuts it in batches, the largest first (as the check queues its own).
    private func list(_ planned: [(key: String, types: [HashType], size: Int64)]) {
        var cut: [(keys: [String], bytes: Int64)] = []
        for (key, _, size) in planned {
            if let last = cut.last, last.keys.count < ResourceSealVerifier.batchFiles, last.bytes < ResourceSealVerifier.batchBytes {
                cut[cut.count - 1].keys.append(key)
                cut[cut.count - 1].bytes += size
            } else {
                cut.append(([key], size))
            }
        }
        let ordered = cut.enumerated().sorted { ($0.element.bytes, $1.offset) > ($1.element.bytes, $0.offset) }.map(\.element.keys)
        states.lock()
        for (key, types, _) in planned where files[key] == nil { files[key] = (types, .waiting) }
        batches = ordered
        states.unlock()
    }

    /// Hashes batch after batch until none is left.
    private func work() {
        while true {
            states.lock()
            guard !isCancelled, nextBatch < batches.count else { return states.unlock() }
            let keys = batches[nextBatch]
            nextBatch += 1
            states.unlock()
            for key in keys { hash(key) }
        }
    }

    /// Hashes the file at `key` unless the check took it or the prefetch was cancelled.
    private func hash(_ key: String) {
        states.lock()
        guard !isCancelled, let entry = files[key], case .waiting = entry.state else { return states.unlock() }
        files[key] = (entry.types, .hashing)
        states.unlock()
        let result = Result { try reader.computeDigests(key, types: entry.types) }
        states.lock()
        files[key] = (entry.types, .done(result))
        states.broadcast()
        states.unlock()
    }

    /// The digests of `types` of the file at `key` once a job has them (waiting for one that is
    /// hashing the file); nil when no job will: the caller computes them.
    func take(_ key: String, types: [HashType]) -> Result<[HashType: [UInt8]], any Error>? {
        states.lock()
        defer { states.unlock() }
        while true {
            guard let entry = files[key] else {
                files[key] = (types, .taken)
                return nil
            }
            guard entry.types == types else { return nil }
            switch entry.state {
            case .waiting:
                files[key] = (types, .taken)
                return nil
            case .taken:
                return nil
            case .hashing:
                states.wait()
            case .done(let result):
                return result
            }
        }
    }

    /// Skips the jobs not started and waits for those running (the check is over).
    func finish() {
        states.lock()
        isCancelled = true
        states.unlock()
        try? workers.wait()  // the jobs throw nothing
    }
}
