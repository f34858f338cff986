import CLibCrypto
import Foundation
import SystemSupport

/// SHA-256 and HMAC-SHA256 through libcrypto, as SigV4 uses them; pure functions, safe on any thread.
public enum SHA256 {
    /// The SHA-256 of `bytes`.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_sha256(), nil) }
        }
        // EVP_Digest fails only when libcrypto cannot allocate.
        precondition(ok == 1 && length == 32, "libcrypto could not compute a SHA-256 digest")
        return output
    }

    /// The lower-case hexadecimal SHA-256 of `text`'s UTF-8 bytes.
    public static func hex(_ text: String) -> String { hash(Array(text.utf8)).hexString }

    /// HMAC-SHA256 of `message` under `key` (libcrypto's EVP_Q_mac).
    public static func hmac<Key: ContiguousBytes>(key: Key, _ message: String) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length = 0
        let data = Array(message.utf8)
        let result = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    EVP_Q_mac(
                        nil, "HMAC", nil, "SHA256", nil, keyBytes.baseAddress, keyBytes.count, input.baseAddress, input.count,
                        out.baseAddress, out.count, &length)
                }
            }
        }
        precondition(result != nil && length == 32, "libcrypto could not compute an HMAC-SHA256")
        return output
    }
}

/// SHA-256 fed in pieces (libcrypto's EVP_MD_CTX), so a file is hashed without holding it whole.
/// One instance belongs to one thread.
public final class SHA256Stream {
    private let context: OpaquePointer

    public init() {
        // EVP_MD_CTX_new and EVP_DigestInit_ex fail only when libcrypto cannot allocate.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a digest context") }
        self.context = context
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "libcrypto could not start a SHA-256 digest")
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `buffer` to the digest.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1, "libcrypto could not update a SHA-256 digest")
    }

    /// The digest of everything added (the stream cannot be used after).
    public func finish() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(ok == 1 && length == 32, "libcrypto could not finish a SHA-256 digest")
        return output
    }
}
