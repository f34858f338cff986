import CodeSign
import Foundation
import SystemSupport
import XcodeProjectEditing

/// The secret that makes and checks enrollment challenges (``EnrollmentChallenge``): 32 random bytes in a
/// file (`adhocbuild devices key -o udid.key`), read by `devices enroll-page` in CI and by `devices receive`
/// on the server, so a shared secret between the two. The file is written with mode 0600.
public struct EnrollmentKey: Sendable {
    /// The number of bytes in a key, and in its file.
    public static let size = 32

    /// The secret bytes.
    public let bytes: [UInt8]

    /// A key of `bytes`; nil unless there are exactly ``size`` of them.
    public init?(bytes: [UInt8]) {
        guard bytes.count == EnrollmentKey.size else { return nil }
        self.bytes = bytes
    }

    /// A new key of random bytes.
    public static func random() throws -> EnrollmentKey {
        EnrollmentKey(bytes: try RandomBytes.make(size))!
    }

    /// Reads the key file at `path`; throws naming the file when it cannot be read or is not ``size`` bytes.
    public init(contentsOf path: String) throws {
        let data = try FileIO.read(path, limit: 4096)
        guard let key = EnrollmentKey(bytes: [UInt8](data)) else {
            throw Diagnostic.build(
                "is \(data.count) bytes, not the \(EnrollmentKey.size) of an enrollment key (make one with: adhocbuild devices key -o FILE)",
                file: path)
        }
        self = key
    }

    /// Writes the key to `path` with mode 0600, under a temporary name renamed into place; refuses to
    /// replace an existing file, since every published enrollment page's challenge depends on the old key.
    public func write(to path: String) throws {
        if FileIO.kind(of: path) != nil {
            throw Diagnostic.build(
                "already exists; an enrollment key is not replaced, since the enrollment pages made with it would stop working "
                    + "(remove the file first to make a new one)", file: path)
        }
        let writer = try AtomicFileWriter(path: path, mode: 0o600)
        do {
            try bytes.withUnsafeBytes { try FileIO.writeAll(writer.fileDescriptor, $0) }
            try writer.commit()
        } catch let error as Diagnostic {
            writer.abort()
            throw error.inFile(path)
        }
    }
}
