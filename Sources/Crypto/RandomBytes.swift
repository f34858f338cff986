import CLibCrypto
import SystemSupport

/// Cryptographically strong random bytes from libcrypto's generator (`RAND_bytes`).
public enum RandomBytes {
    /// `count` random bytes; throws when libcrypto's generator is not seeded or fails.
    public static func make(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        LibCryptoErrors.clear()
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else {
            throw Diagnostic(
                DiagnosticCode(CryptoProblem.unavailable), "libcrypto could not make \(count) random bytes: \(LibCryptoErrors.drain())")
        }
        return bytes
    }
}
