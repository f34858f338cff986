import CLibCrypto

/// HMAC-SHA256 through libcrypto (`EVP_Q_mac`); a pure function, safe on any thread (SigV4's keys and
/// signatures, enrollment challenges).
public enum HMAC {
    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    public static func sha256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        let result = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_Q_mac(
                        nil, "HMAC", nil, "SHA256", nil, keyBytes.baseAddress, keyBytes.count, input.baseAddress, input.count,
                        out.baseAddress, out.count, &length)
                }
            }
        }
        // EVP_Q_mac fails only when libcrypto cannot allocate or lacks HMAC/SHA-256.
        precondition(result != nil && length == 32, "libcrypto could not compute an HMAC-SHA256")
        return output
    }

    /// Whether `a` and `b` are equal, in time that depends only on their lengths (`CRYPTO_memcmp`), for
    /// comparing a MAC an attacker sent with the expected one.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
        }
    }
}
