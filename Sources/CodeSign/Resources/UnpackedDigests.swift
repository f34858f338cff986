import Foundation
import IPAKit
import SystemSupport

extension DigestCache: UnpackedFileObserver {
    /// Hashes each file as it is unpacked (SHA-1 and SHA-256), so sealing the folder reads again
    /// only what changed since.
    public func watch(_ path: String) -> any UnpackedFileWatch { UnpackedFileDigests(path: path, cache: self) }
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

    func finish(_ info: stat) {
        guard hashing else { return }
        cache.record(path, identity: FileIdentity(info), content: .file(sha1: sha1.finish(), sha256: sha256.finish()))
    }
}
