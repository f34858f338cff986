import CLibCrypto
import Foundation
import SystemSupport

/// The certificates a ``SignedDataVerifier`` trusts, read from a PEM bundle (`--trust`): each one may be a
/// root or an intermediate (a partial chain ending at any of them is accepted).
public struct TrustAnchors: Sendable {
    /// The file the anchors were read from (as given), for messages.
    public var file: String
    /// The anchors, in the order of the file; never empty.
    public var certificates: [CertificateInfo]

    /// Reads the PEM bundle at `path`; throws naming the file when it cannot be read or holds no certificate.
    public init(pemFile path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Diagnostic.codeSign(.unreadable, "cannot read the trust anchor file", file: path)
        }
        try self.init(pem: [UInt8](data), file: path)
    }

    /// Reads PEM bytes that came from `file` (used in messages); other PEM blocks are skipped.
    public init(pem bytes: [UInt8], file: String) throws {
        let certificates = LibCrypto.pemCertificates(bytes)
        guard !certificates.isEmpty else {
            throw Diagnostic.codeSign(
                .malformed, "the trust anchor file holds no PEM certificate (\(bytes.count) bytes)", file: file,
                hint: "convert a DER .cer with: openssl x509 -inform DER -in CA.cer -out CA.pem")
        }
        self.file = file
        self.certificates = certificates
    }
}
