import CLibCrypto

/// A digest fed in pieces (libcrypto's EVP_MD_CTX), so a file can be hashed without holding it whole.
/// One instance belongs to one thread.
public final class DigestStream {
    public let type: HashType
    private let context: OpaquePointer

    public init(_ type: HashType) {
        self.type = type
        // EVP_MD_CTX_new and EVP_DigestInit_ex fail only when libcrypto cannot allocate.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a digest context") }
        self.context = context
        let algorithm = DigestAlgorithm.of(type)
        precondition(EVP_DigestInit_ex(context, algorithm, nil) == 1, "libcrypto could not start a \(type) digest")
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `buffer` to the digest.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1, "libcrypto could not update a \(type) digest")
    }

    /// Whether the digest of `buffer` alone is `expected` (its stored size): the stream is started
    /// afresh, so one stream checks page after page without allocating.
    public func matches(_ buffer: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        expected.withUnsafeBytes { matches(buffer, $0) }
    }

    /// Whether the digest of `buffer` alone is the bytes `expected` points at (see ``matches(_:_:)-([UInt8])``).
    public func matches(_ buffer: UnsafeRawBufferPointer, _ expected: UnsafeRawBufferPointer) -> Bool {
        digestOnStack(of: buffer) { digest in
            expected.count == type.size && memcmp(expected.baseAddress!, digest.baseAddress!, expected.count) == 0
        }
    }

    /// The digest of `buffer` alone (truncated to the stored size): the stream is started afresh,
    /// so one stream hashes page after page without allocating a context for each.
    public func digest(of buffer: UnsafeRawBufferPointer) -> [UInt8] {
        digestOnStack(of: buffer) { Array($0) }
    }

    /// Restarts the stream, hashes `buffer` and hands `body` the digest (its stored size), which
    /// lives on the stack.
    private func digestOnStack<R>(of buffer: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        precondition(EVP_DigestInit_ex(context, DigestAlgorithm.of(type), nil) == 1, "libcrypto could not start a \(type) digest")
        update(buffer)
        return finishOnStack(body)
    }

    /// The digest (truncated to the stored size for ``HashType/sha256Truncated``).
    public func finish() -> [UInt8] {
        // Copied once from the stack at its stored size: one array per digest, where a scratch array
        // of the largest size and its prefix made two for each of an app's thousands of files.
        finishOnStack { Array($0) }
    }

    /// Finishes the digest and hands `body` its stored size, which lives on the stack.
    private func finishOnStack<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        // Large enough for any digest (EVP_MAX_MD_SIZE is 64).
        var output: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var length: UInt32 = 0
        return withUnsafeMutableBytes(of: &output) { out in
            precondition(
                EVP_DigestFinal_ex(context, out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1,
                "libcrypto could not finish a \(type) digest")
            return body(UnsafeRawBufferPointer(rebasing: out.prefix(type.size)))
        }
    }
}
