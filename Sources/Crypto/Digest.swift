import CLibCrypto
import Foundation
import SystemSupport

/// A hash algorithm adhocbuild computes: those a CodeDirectory or a resource seal can use, with their
/// code in the CodeDirectory as raw value (SHA-256 is also what SigV4 and the store's checks use).
public enum HashType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case sha1 = 1
    case sha256 = 2
    /// SHA-256 truncated to 20 bytes.
    case sha256Truncated = 3
    case sha384 = 4

    /// The number of bytes the CodeDirectory stores per hash.
    public var size: Int {
        switch self {
        case .sha1, .sha256Truncated: return 20
        case .sha256: return 32
        case .sha384: return 48
        }
    }

    /// How strong the type is (greater is stronger), in the order Apple's code-signing library ranks
    /// them when it chooses the CodeDirectory to check pages and resources by.
    public var strength: Int {
        switch self {
        case .sha1: return 0
        case .sha256Truncated: return 1
        case .sha256: return 2
        case .sha384: return 3
        }
    }

    /// The name `codesign -d -v` prints.
    public var description: String {
        switch self {
        case .sha1: return "sha1"
        case .sha256: return "sha256"
        case .sha256Truncated: return "sha256-truncated"
        case .sha384: return "sha384"
        }
    }
}

/// Digests computed by libcrypto (EVP); pure functions of their input, safe to call from any thread.
public enum Digest {
    /// The `type` digest of `bytes` (truncated to the stored size for ``HashType/sha256Truncated``).
    public static func hash<Bytes: ContiguousBytes>(_ type: HashType, _ bytes: Bytes) -> [UInt8] {
        bytes.withUnsafeBytes { hash(type, UnsafeRawBufferPointer($0)) }
    }

    /// The `type` digest of the bytes in `buffer`.
    public static func hash(_ type: HashType, _ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        let algorithm = DigestAlgorithm.of(type)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBufferPointer { out in
            EVP_Digest(buffer.baseAddress, buffer.count, out.baseAddress, &length, algorithm, nil)
        }
        // EVP_Digest fails only when libcrypto cannot allocate or the algorithm is missing from the build.
        precondition(ok == 1, "libcrypto could not compute a \(type) digest")
        return Array(output.prefix(type.size))
    }

    public static func sha1<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] { hash(.sha1, bytes) }
    public static func sha256<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] { hash(.sha256, bytes) }
    public static func sha384<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] { hash(.sha384, bytes) }

    /// The MD5 of `bytes`, for what still asks for it (S3's `Content-MD5`); never for trust.
    public static func md5<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_md5(), nil) }
        }
        precondition(ok == 1 && length == 16, "libcrypto could not compute an MD5 digest")
        return output
    }
}
