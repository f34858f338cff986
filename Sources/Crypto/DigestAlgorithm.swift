import CLibCrypto

/// libcrypto's digest implementations, fetched once per process.
///
/// OpenSSL 3 looks the algorithm up in its provider store (taking a global lock) on every digest
/// started with `EVP_sha256()`; fetching it once and starting every digest with the fetched one
/// skips that, which matters when thousands of small files and pages are hashed on every core.
// @unchecked Sendable: the pointers are set once and only read; fetched EVP_MDs are immutable and
// libcrypto allows sharing them between threads.
final class DigestAlgorithm: @unchecked Sendable {
    let sha1: OpaquePointer
    let sha256: OpaquePointer
    let sha384: OpaquePointer

    static let shared = DigestAlgorithm()

    private init() {
        // The default provider always has these; without them libcrypto itself is broken.
        guard let sha1 = EVP_MD_fetch(nil, "SHA1", nil), let sha256 = EVP_MD_fetch(nil, "SHA256", nil),
            let sha384 = EVP_MD_fetch(nil, "SHA384", nil)
        else { preconditionFailure("libcrypto has no SHA-1/SHA-256/SHA-384 implementation") }
        self.sha1 = sha1
        self.sha256 = sha256
        self.sha384 = sha384
    }

    /// The implementation of `type`.
    static func of(_ type: HashType) -> OpaquePointer {
        switch type {
        case .sha1: return shared.sha1
        case .sha256, .sha256Truncated: return shared.sha256
        case .sha384: return shared.sha384
        }
    }
}
