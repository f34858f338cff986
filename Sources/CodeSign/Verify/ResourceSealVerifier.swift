import Foundation
import IPAKit
import SystemSupport

/// Checks the files a bundle's `_CodeSignature/CodeResources` seals against the bundle's files:
/// `files2` under `rules2` for a modern seal, `files` under `rules` for an old one (as codesign does).
/// Each sealed file is hashed on the pool; modified, missing, and added-but-unsealed files are each named.
struct ResourceSealVerifier {
    let resources: CodeResources
    /// The bundle's storage path (`Payload/Test.app`).
    let bundleKey: String
    /// The bundle's executable (its path relative to the bundle), checked by its pages.
    let executable: String
    /// The bundle's files relative to it, except its executable and its own `_CodeSignature/` folder.
    let files: [ItemFile]
    /// The cdhashes of each nested code item, by its path relative to the bundle.
    let nestedCdhashes: [String: [[UInt8]]]
    let reader: BundleFileReader

    /// Whether the seal is version 2 (`files2`/`rules2`).
    var isVersion2: Bool { resources.isVersion2 }

    /// The seals checked: `files2` for version 2, `files` for version 1.
    var seals: [String: ResourceSeal] { isVersion2 ? resources.files2 : resources.files }

    /// Queues the hashing jobs on `pool`, which add (kind, file, message) problems to `problems`; returns
    /// the problems found without hashing (missing, added, rules that do not compile).
    func submit(to pool: WorkerPool, problems: Locked<[SealFinding]>) -> [SealFinding] {
        let seals = self.seals
        let matcher: ResourceRuleMatcher
        do {
            matcher = try ResourceRuleMatcher(isVersion2 ? resources.rules2 : resources.rules)
        } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
            return [(.malformed, "_CodeSignature/CodeResources", error.description)]
        } catch {
            return [(.malformed, "_CodeSignature/CodeResources", "\(error)")]
        }
        var found: [SealFinding] = []
        let nestedRoots = nestedCdhashes.keys.sorted()
        // Small files go to the workers in batches, so a job's cost is hashing, not waking a thread.
        // The batches are queued largest first, so the last jobs are short and no core waits long
        // at the end for another one's big file.
        var batches: [(files: [SealedFile], bytes: Int64)] = []
        var batch: [SealedFile] = []
        var batchBytes: Int64 = 0
        // How many of the seals name a file that is here (each file is listed once).
        var sealsPresent = 0
        // Files hashed as the folder was listed are compared there, with the seal; the prefetch says
        // which are sealed, confirmed, or not, and this checks the rest as always.
        let prefetch = reader.folderPrefetch.flatMap { $0.covers(bundleKey) && $0.isStarted ? $0 : nil }
        // What a file the seal does not name is: left out, nested code, or added.
        func unsealed(_ path: String) {
            switch matcher.verdict(for: path) {
            case .omitted:
                return
            case .nested:
                // Nested code is sealed as a whole under its root's path; other files as resources.
                if let root = nestedRoots.first(where: { path == $0 || path.hasPrefix($0 + "/") }), seals[root] != nil { return }
                found.append((.resourceAdded, path, "added, not sealed"))
            case .sealed:
                found.append((.resourceAdded, path, "added, not sealed"))
            }
        }
        func add(_ sealed: SealedFile) {
            batch.append(sealed)
            // A folder indexed by kinds alone has no sizes: its batches are of files, queued in order.
            batchBytes += max(0, sealed.file.size)
            if batch.count >= ResourceSealVerifier.batchFiles || batchBytes >= ResourceSealVerifier.batchBytes {
                batches.append((batch, batchBytes))
                batch = []
                batchBytes = 0
            }
        }
        func check(_ entry: ItemFile) {
            if let seal = seals[entry.path] {
                sealsPresent += 1
                add(SealedFile(path: entry.path, file: entry.file, seal: seal))
            } else {
                unsealed(entry.path)
            }
        }
        let leftToPrefetch = { (entry: ItemFile) in prefetch.map { !entry.file.isSymlink && $0.hashes(entry.path) } ?? false }
        for entry in files where !leftToPrefetch(entry) { check(entry) }
        if let prefetch {
            // Every file the prefetch hashed is one left out above (a regular file of this listing),
            // but the executable; it reports on each. One it does not confirm is checked as if there
            // were no prefetch, so its problem is named as always.
            if let outcome = prefetch.confirm(against: seals, isVersion2: isVersion2, excluding: executable) {
                sealsPresent += outcome.sealed
                outcome.unsealed.forEach(unsealed)
                for path in outcome.unconfirmed {
                    guard let seal = seals[path], let file = reader.file(bundleKey + "/" + path) else { continue }
                    add(SealedFile(path: path, file: file, seal: seal))
                }
            } else {
                // Cancelled after all: those files are checked here after all.
                for entry in files where leftToPrefetch(entry) { check(entry) }
            }
        }
        if !batch.isEmpty { batches.append((batch, batchBytes)) }
        // Sealed but not here: found before the batches are queued (queueing waits for the workers,
        // which would otherwise sit idle at the end while this thread sorts the seals). None are when
        // every seal named a file here.
        if sealsPresent < seals.count { found += absent(from: Set(files.lazy.map(\.path))) }
        // Stable, so equal batches keep the order of the files.
        for (index, _) in batches.enumerated().sorted(by: { ($0.element.bytes, $1.offset) > ($1.element.bytes, $0.offset) }) {
            submitCompare(batches[index].files, to: pool, problems: problems)
        }
        return found
    }

    /// The one digest `seal` has a plain file's content checked against, when it is of `type`
    /// (see ``expectedHashes(_:isVersion2:)``); nil for any other seal.
    static func soleDigest(_ seal: ResourceSeal, type: HashType, isVersion2: Bool) -> [UInt8]? {
        let expected = expectedHashes(seal, isVersion2: isVersion2)
        guard expected.count == 1, expected[0].0 == type else { return nil }
        return expected[0].1
    }

    /// The problems of the seals whose files are not in `present`, by path: missing files, and
    /// nested code whose cdhash is not the sealed one.
    private func absent(from present: Set<String>) -> [SealFinding] {
        var found: [SealFinding] = []
        for (path, seal) in seals.filter({ !present.contains($0.key) }).sorted(by: { $0.key < $1.key }) {
            if seal.cdhash != nil, let cdhashes = nestedCdhashes[path] {
                if !cdhashes.contains(seal.cdhash!) {
                    let now = cdhashes.first.map { ", now \($0.hexString)" } ?? ""
                    found.append((.nestedCodeModified, path, "nested code modified (sealed cdhash \(seal.cdhash!.hexString)\(now))"))
                }
            } else if !seal.optional {
                found.append((.resourceMissing, path, "missing"))
            }
        }
        return found
    }

    /// At most this many files, or this many bytes (a big file goes alone), are hashed by one job.
    static let batchFiles = 64
    static let batchBytes: Int64 = 1 << 20

    /// A file here that a seal names, with the seal.
    private struct SealedFile: Sendable {
        var path: String
        var file: BundleFile
        var seal: ResourceSeal
    }

    private func submitCompare(_ batch: [SealedFile], to pool: WorkerPool, problems: Locked<[SealFinding]>) {
        let bundleKey = self.bundleKey
        let reader = self.reader
        let isVersion2 = self.isVersion2
        pool.submit {
            var found: [SealFinding] = []
            for sealed in batch {
                let problem: (kind: CodeSignProblem, message: String)?
                do {
                    problem = try ResourceSealVerifier.compare(
                        bundleKey + "/" + sealed.path, sealed.seal, isLink: sealed.file.isSymlink, reader: reader, isVersion2: isVersion2)
                } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
                    problem = (.unreadable, error.description)
                } catch {
                    problem = (.unreadable, "\(error)")
                }
                if let problem { found.append((problem.kind, sealed.path, problem.message)) }
            }
            if !found.isEmpty { problems.withLock { $0 += found } }
        }
    }

    /// What differs between the file at `key` (a symbolic link when `isLink`, as the index says) and
    /// its seal, or nil when it matches.
    static func compare(
        _ key: String, _ seal: ResourceSeal, isLink: Bool, reader: BundleFileReader, isVersion2: Bool
    ) throws -> (kind: CodeSignProblem, message: String)? {
        if let sealedTarget = seal.symlink {
            guard isLink else { return (.resourceModified, "sealed as a symbolic link to '\(sealedTarget)', now a file") }
            let target = try reader.linkTarget(key)
            return target == sealedTarget
                ? nil : (.resourceModified, "symbolic link modified (sealed to '\(sealedTarget)', now to '\(target)')")
        }
        if seal.cdhash != nil && seal.hash == nil && seal.hash2 == nil {
            return (.resourceModified, "sealed as nested code, but not found as nested code here")
        }
        if isLink && isVersion2 { return (.resourceModified, "sealed as a file, now a symbolic link to '\(try reader.linkTarget(key))'") }
        let expected = expectedHashes(seal, isVersion2: isVersion2)
        guard !expected.isEmpty else { return (.malformed, "the seal holds no hash") }
        let digests = try reader.digests(key, types: expected.map(\.0))
        for (type, sealed) in expected where digests[type] != sealed {
            return (.resourceModified, "modified (sealed \(type.displayName) \(sealed.shortHex), now \(digests[type]!.shortHex))")
        }
        return nil
    }

    /// The hashes a file's content is checked against: version 1 seals hold SHA-1 only; version 2
    /// seals hold SHA-256 and, from older Xcodes, SHA-1 too, checked only when there is no SHA-256.
    static func expectedHashes(_ seal: ResourceSeal, isVersion2: Bool) -> [(HashType, [UInt8])] {
        var expected: [(HashType, [UInt8])] = []
        if let hash2 = seal.hash2 { expected.append((.sha256, hash2)) }
        if let hash = seal.hash, !isVersion2 || seal.hash2 == nil { expected.append((.sha1, hash)) }
        return expected
    }
}
