import CLibCrypto

/// Checks a CMS signer's signature as RFC 5652 §5.6 describes, over bytes exactly as the message
/// stores them, with libcrypto's `EVP_DigestVerify*` and the signer certificate's public key.
///
/// With signed attributes the signature covers them (as ``StoredSignedAttributes`` finds them, never
/// re-encoded) and their messageDigest must be the digest of the content; without, it covers the
/// content itself. The key type decides the scheme (PKCS#1 v1.5 for RSA, ECDSA for EC); the
/// signatureAlgorithm must name that key type and, when it names a digest too, the signer's digest.
enum SignerSignatureVerifier {
    /// What the signature of one SignerInfo covers.
    struct Signed {
        /// The signer's digest algorithm and signature algorithm.
        var digestAlgorithm: OpaquePointer?
        var signatureAlgorithm: OpaquePointer?
        /// The signature value.
        var signature: [UInt8]
        /// The signed attributes as the signature covers them, or nil when there are none.
        var attributes: [UInt8]?
        /// The messageDigest attribute's value, or nil.
        var messageDigest: [UInt8]?
    }

    /// Why the signature in `signed` does not verify over `content` with `certificate`'s key, in one
    /// line, or nil when it does.
    static func failure(_ signed: Signed, certificate: OpaquePointer, content: [UInt8]) -> String? {
        LibCryptoErrors.clear()
        let digestNID = OBJ_obj2nid(signed.digestAlgorithm)
        guard digestNID != NID_undef, let name = OBJ_nid2sn(digestNID), let digest = EVP_MD_fetch(nil, name, nil) else {
            LibCryptoErrors.clear()
            return "the signer's digest algorithm \(describe(signed.digestAlgorithm)) is not one libcrypto has"
        }
        defer { EVP_MD_free(digest) }
        guard let key = X509_get0_pubkey(certificate) else {
            return "the signer's certificate has no public key libcrypto can read: \(LibCryptoErrors.drain())"
        }
        if let mismatch = algorithmMismatch(signed, digestNID: digestNID, key: key) { return mismatch }
        let message = signed.attributes ?? content
        guard verify(signed.signature, over: message, digest: digest, key: key) else {
            let covered = signed.attributes == nil ? "the content (there are no signed attributes)" : "the signed attributes as stored"
            return "the signature is not valid over \(covered): \(LibCryptoErrors.drain())"
        }
        guard signed.attributes != nil else { return nil }
        guard let stated = signed.messageDigest else { return "the signed attributes have no messageDigest" }
        let actual = hash(content, digest)
        guard stated == actual else {
            return "the signed messageDigest \(stated.hexString) is not the \(describe(signed.digestAlgorithm)) digest of the content "
                + "(\(actual.hexString))"
        }
        return nil
    }

    /// Why the signatureAlgorithm does not fit the key or the digest algorithm, or nil when it does.
    private static func algorithmMismatch(_ signed: Signed, digestNID: Int32, key: OpaquePointer) -> String? {
        let signatureNID = OBJ_obj2nid(signed.signatureAlgorithm)
        var impliedDigest: Int32 = NID_undef
        var keyType: Int32 = signatureNID
        if OBJ_find_sigid_algs(signatureNID, &impliedDigest, &keyType) == 1 {
            // A combined algorithm (sha256WithRSAEncryption, ecdsa-with-SHA256); one without a digest
            // (RSASSA-PSS, Ed25519) takes parameters this check does not read.
            guard impliedDigest != NID_undef else {
                return "the signature algorithm \(describe(signed.signatureAlgorithm)) is not one this check supports"
            }
            guard impliedDigest == digestNID else {
                return "the signature algorithm \(describe(signed.signatureAlgorithm)) does not use the signer's digest algorithm "
                    + describe(signed.digestAlgorithm)
            }
        }
        guard signatureNID != NID_undef, keyType == EVP_PKEY_get_base_id(key) else {
            let actual = OBJ_nid2ln(EVP_PKEY_get_base_id(key)).map { String(cString: $0) } ?? "unknown"
            return "the signature algorithm \(describe(signed.signatureAlgorithm)) does not fit the signer's \(actual) key"
        }
        return nil
    }

    /// Whether `signature` is `key`'s signature over `message` with `digest`; libcrypto's errors stay queued.
    private static func verify(_ signature: [UInt8], over message: [UInt8], digest: OpaquePointer, key: OpaquePointer) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, digest, nil, key) == 1 else { return false }
        let updated = message.withUnsafeBytes { EVP_DigestVerifyUpdate(context, $0.baseAddress, $0.count) }
        guard updated == 1 else { return false }
        return signature.withUnsafeBufferPointer { EVP_DigestVerifyFinal(context, $0.baseAddress, $0.count) } == 1
    }

    /// The `digest` of `bytes`.
    private static func hash(_ bytes: [UInt8], _ digest: OpaquePointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, digest, nil) }
        }
        return ok == 1 ? Array(output.prefix(Int(length))) : []
    }

    /// An algorithm as `sha256WithRSAEncryption (1.2.840.113549.1.1.11)`, or its dotted OID alone.
    private static func describe(_ object: OpaquePointer?) -> String {
        let dotted = LibCrypto.oid(object)
        let nid = OBJ_obj2nid(object)
        guard nid != NID_undef, let name = OBJ_nid2ln(nid) else { return dotted.isEmpty ? "(none)" : dotted }
        return "\(String(cString: name)) (\(dotted))"
    }
}
