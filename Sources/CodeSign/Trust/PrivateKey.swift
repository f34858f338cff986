import CLibCrypto

/// A private key held by libcrypto (an `EVP_PKEY`), never copied out; freed when the last reference goes.
///
/// Not `Sendable`: the key is used by one signing task at a time, and keeping it non-Sendable lets the
/// compiler hold every user to that.
public final class PrivateKey {
    /// The kinds of key a code signature can be made with.
    public enum Kind: Sendable, Equatable {
        case rsa(bits: Int)
        case ec(bits: Int)
        case other(String)
    }

    /// The libcrypto key; owned by this object.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// What kind of key this is, and its size.
    public var kind: Kind {
        let bits = Int(EVP_PKEY_get_bits(pointer))
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_RSA: return .rsa(bits: bits)
        case EVP_PKEY_EC: return .ec(bits: bits)
        default:
            guard let name = EVP_PKEY_get0_type_name(pointer) else { return .other("unknown") }
            return .other(String(cString: name))
        }
    }

    /// Whether this key is the private half of `certificate`'s public key.
    public func matches(_ certificate: CertificateInfo) -> Bool {
        guard let x509 = LibCrypto.decode(certificate.der, { d2i_X509(nil, $0, $1) }) else {
            LibCryptoErrors.clear()
            return false
        }
        defer { X509_free(x509) }
        let matches = X509_check_private_key(x509, pointer) == 1
        LibCryptoErrors.clear()
        return matches
    }
}
