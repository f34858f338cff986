import CLibCrypto
import Foundation
import SystemSupport

/// Signs content into a DER CMS SignedData that carries it (as `openssl cms -sign -binary -nodetach`
/// does): SHA-256, the signer's certificate and its chain included, the signed attributes contentType,
/// signingTime, messageDigest and SMIMECapabilities; the content embedded byte for byte (binary mode,
/// no line-ending translation). What a `.mobileconfig` is signed with so iOS can show it as verified.
public enum AttachedSignedData {
    /// `content` signed by `identity`; throws one line when libcrypto cannot sign.
    public static func sign(content: [UInt8], identity: SigningIdentity) throws -> [UInt8] {
        LibCryptoErrors.clear()
        var certificates: [OpaquePointer] = []
        defer { for certificate in certificates { X509_free(certificate) } }
        for info in [identity.certificate] + identity.chain {
            guard let x509 = LibCrypto.decode(info.der, { d2i_X509(nil, $0, $1) }) else {
                throw failure("cannot read the certificate \(info.displayName)", identity)
            }
            certificates.append(x509)
        }
        guard let chain = shim_sk_X509_new_null() else { throw failure("cannot allocate", identity) }
        defer { shim_sk_X509_free(chain) }
        for certificate in certificates.dropFirst() where shim_sk_X509_push(chain, certificate) <= 0 {
            throw failure("cannot allocate", identity)
        }
        let signed = content.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return CMS_sign(certificates[0], identity.key.pointer, chain, bio, UInt32(CMS_BINARY))
        }
        guard let cms = signed else { throw failure("cannot sign: \(LibCryptoErrors.drain())", identity) }
        defer { CMS_ContentInfo_free(cms) }
        guard let out = LibCrypto.encode({ i2d_CMS_ContentInfo(cms, $0) }) else {
            throw failure("cannot encode the SignedData: \(LibCryptoErrors.drain())", identity)
        }
        return out
    }

    private static func failure(_ message: String, _ identity: SigningIdentity) -> Diagnostic {
        Diagnostic.codeSign(message, file: identity.file, location: "CMS signature")
    }
}
