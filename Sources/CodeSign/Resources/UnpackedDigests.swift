import Foundation
import IPAKit
import SystemSupport

extension DigestCache: UnpackedFileObserver {
    /// Hashes each file as it is unpacked (SHA-1 and SHA-256), so sealing the folder reads again
    /// only what changed since.
    public func watch(_ path: String) -> any UnpackedFileWatch { UnpackedFileDigests(path: path, cache: self) }

    /// An unpack's rule for leaving files in the archive that agrees with what this cache hashes: a
    /// file `mayLeave` lets stay by its entry is left unless it is Mach-O (which the signer writes
    /// again, and this cache does not hash), so every file left has its digests here.
    public static func leavingRule(mayLeave: @escaping @Sendable (ZipArchiveReader.Entry) -> Bool) -> ZipArchiveReader.LeavingRule {
        ZipArchiveReader.LeavingRule(mayLeave: mayLeave, mayLeaveContent: { !skipsHashing($0) })
    }
}

/// One unpacked file's SHA-1 and SHA-256, recorded in the cache once the file is complete.
private final class UnpackedFileDigests: UnpackedFileWatch {
    let path: String
    let cache: DigestCache
    let sha1 = DigestStream(.sha1), sha256 = DigestStream(.sha256)
    /// Whether the first bytes have been seen, and whether they said to hash the file.
    private var started = false, hashing = true

    init(path: String, cache: DigestCache) {
        self.path = path
        self.cache = cache
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        if !started {
            started = true
            hashing = !DigestCache.skipsHashing(bytes)
        }
        guard hashing else { return }
        sha1.update(bytes)
        sha256.update(bytes)
    }

    func finish(_ info: stat?) {
        // A file left in the archive is never Mach-O (``DigestCache/leavingRule(mayLeave:)``), so it was hashed.
        assert(hashing || info != nil, "\(path) was left in its archive without its digests")
        guard hashing else { return }
        cache.record(path, identity: info.map(FileIdentity.init), content: .file(sha1: sha1.finish(), sha256: sha256.finish()))
    }
}
