import CLibCrypto
import SystemSupport

/// Bounds the key-derivation work a PKCS#12 file can ask for before its key is read.
///
/// A PKCS#12 file names its own iteration counts: one for its MAC, and one for each encrypted part
/// (the certificate bag, usually encrypted as a whole, and the private key's shrouded bag). Each
/// count is work done before the password can be judged, so a hostile file asking for 2^31 - 1 holds
/// the signer for minutes. Exporters write 1 to 2,048 (Keychain Access, `openssl pkcs12 -export`)
/// and at most a few hundred thousand; scrypt (RFC 7914), which OpenSSL also reads, is bounded by
/// its cost, block size and parallelism.
///
/// The encrypted parts are checked in the order OpenSSL decrypts them: an encrypted part's own
/// count first, then, once it is decrypted, the shrouded keys inside it.
enum PKCS12WorkLimit {
    /// The most iterations a MAC or an encrypted part may ask for.
    static let maxIterations = 1_000_000
    /// The largest scrypt cost (N) accepted: 2^20, as `openssl pkcs12` allows at most 32 MB for it.
    static let maxScryptCost = 1 << 20
    /// The largest scrypt block size (r) times parallelism (p) accepted.
    static let maxScryptBlocks = 64

    /// Refuses a MAC whose iteration count is outside 1 to ``maxIterations``.
    static func checkMAC(_ p12: OpaquePointer, file: String) throws {
        var iterations: UnsafePointer<ASN1_INTEGER>?
        PKCS12_get0_mac(nil, nil, nil, &iterations, p12)
        guard let iterations else { return }
        try check(iterations: Int(ASN1_INTEGER_get(iterations)), of: "its MAC", file: file)
    }

    /// Refuses an encrypted part, or a shrouded key inside one `password` opens, that asks for more
    /// work than the limits. Parts that do not decrypt are left to `PKCS12_parse`, which fails on them.
    static func checkEncryptedParts(_ p12: OpaquePointer, password: String, file: String) throws {
        guard let parts = PKCS12_unpack_authsafes(p12) else {
            LibCryptoErrors.clear()
            return
        }
        defer { shim_sk_PKCS7_pop_free(parts) }
        for index in 0..<shim_sk_PKCS7_num(parts) {
            guard let part = shim_sk_PKCS7_value(parts, index) else { continue }
            let bags: OpaquePointer?
            if shim_PKCS7_type_is_encrypted(part) != 0 {
                try checkAlgorithm(of: UnsafePointer(part), file: file)
                // PKCS12_parse also tries an empty password as no password at all.
                bags = PKCS12_unpack_p7encdata(part, password, -1) ?? (password.isEmpty ? PKCS12_unpack_p7encdata(part, nil, 0) : nil)
            } else if shim_PKCS7_type_is_data(part) != 0 {
                bags = PKCS12_unpack_p7data(part)
            } else {
                bags = nil
            }
            guard let bags else {
                LibCryptoErrors.clear()
                continue
            }
            defer { shim_sk_PKCS12_SAFEBAG_pop_free(bags) }
            try checkShroudedKeys(in: bags, file: file, depth: 0)
        }
    }

    /// Checks each shrouded key bag in `bags`, and the bags nested in a SafeContents bag.
    private static func checkShroudedKeys(in bags: OpaquePointer, file: String, depth: Int) throws {
        for index in 0..<shim_sk_PKCS12_SAFEBAG_num(bags) {
            guard let bag = shim_sk_PKCS12_SAFEBAG_value(bags, index) else { continue }
            switch PKCS12_SAFEBAG_get_nid(bag) {
            case NID_pkcs8ShroudedKeyBag:
                guard let shrouded = PKCS12_SAFEBAG_get0_pkcs8(bag) else { continue }
                var algorithm: UnsafePointer<X509_ALGOR>?
                X509_SIG_get0(shrouded, &algorithm, nil)
                guard let algorithm else { continue }
                var der: UnsafeMutablePointer<UInt8>?
                let length = i2d_X509_ALGOR(algorithm, &der)
                guard length > 0, let der else { continue }
                defer { shim_OPENSSL_free(der) }
                try checkAlgorithmIdentifier(
                    UnsafeBufferPointer(start: der, count: Int(length)), of: "the encryption of its private key", file: file)
            case NID_safeContentsBag where depth < 4:
                guard let nested = PKCS12_SAFEBAG_get0_safes(bag) else { continue }
                try checkShroudedKeys(in: nested, file: file, depth: depth + 1)
            default:
                continue
            }
        }
    }

    /// Checks the encryption algorithm of an encrypted part: ContentInfo { encryptedData,
    /// [0] EncryptedData { version, EncryptedContentInfo { type, AlgorithmIdentifier, … } } }.
    private static func checkAlgorithm(of part: UnsafePointer<PKCS7>, file: String) throws {
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_PKCS7(part, &der)
        guard length > 0, let der else { return }
        defer { shim_OPENSSL_free(der) }
        let bytes = UnsafeBufferPointer(start: der, count: Int(length))
        guard let contentInfo = BERElement.read(bytes, at: 0, limit: bytes.count), let outer = contentInfo.children(bytes),
            outer.count == 2, let wrapped = outer[1].children(bytes), let encryptedData = wrapped.first?.children(bytes),
            encryptedData.count >= 2, let contentFields = encryptedData[1].children(bytes), contentFields.count >= 2
        else { return }
        let algorithm = contentFields[1]
        try checkAlgorithmIdentifier(
            UnsafeBufferPointer(rebasing: bytes[algorithm.start..<algorithm.end]), of: "the encryption of its certificates", file: file)
    }

    /// Object identifiers (content octets) of the key derivations with parameters of their own.
    private static let pbes2: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0D]  // 1.2.840.113549.1.5.13
    private static let pbkdf2: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x05, 0x0C]  // 1.2.840.113549.1.5.12
    private static let scrypt: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0xDA, 0x47, 0x04, 0x0B]  // 1.3.6.1.4.1.11591.4.11

    /// Checks one AlgorithmIdentifier: PBES2 (RFC 8018) names PBKDF2 or scrypt with their parameters;
    /// the PKCS#5 v1 and PKCS#12 schemes carry `{ salt, iterations }` directly. Anything else is
    /// left to OpenSSL, which refuses what it does not know.
    private static func checkAlgorithmIdentifier(_ bytes: UnsafeBufferPointer<UInt8>, of part: String, file: String) throws {
        guard let identifier = BERElement.read(bytes, at: 0, limit: bytes.count), let fields = identifier.children(bytes),
            fields.count == 2, fields[0].tag == V_ASN1_OBJECT
        else { return }
        let oid = Array(bytes[fields[0].contentStart..<fields[0].contentEnd])
        guard oid == pbes2 else {
            try checkIterationPair(fields[1], in: bytes, of: part, file: file)
            return
        }
        guard let schemes = fields[1].children(bytes), let derivation = schemes.first?.children(bytes), derivation.count == 2,
            derivation[0].tag == V_ASN1_OBJECT
        else { return }
        let derivationOID = Array(bytes[derivation[0].contentStart..<derivation[0].contentEnd])
        guard let parameters = derivation[1].children(bytes) else { return }
        if derivationOID == pbkdf2, parameters.count >= 2 {
            try check(iterations: integer(parameters[1], in: bytes), of: part, file: file)
        } else if derivationOID == scrypt, parameters.count >= 4 {
            let cost = integer(parameters[1], in: bytes)
            let blocks = integer(parameters[2], in: bytes).multipliedReportingOverflow(by: integer(parameters[3], in: bytes))
            guard cost < 1 || cost > maxScryptCost || blocks.overflow || blocks.partialValue < 1 || blocks.partialValue > maxScryptBlocks
            else { return }
            LibCryptoErrors.clear()
            throw Diagnostic.codeSign(
                .identityInvalid,
                "\(part) asks for scrypt with cost \(cost) and \(blocks.overflow ? "too many" : String(blocks.partialValue)) "
                    + "blocks, outside the cost up to \(maxScryptCost) and at most \(maxScryptBlocks) blocks adhocbuild computes",
                file: file, hint: reexportHint)
        }
    }

    /// Checks PKCS#5 v1 / PKCS#12 parameters `{ salt OCTET STRING, iterations INTEGER }`.
    private static func checkIterationPair(_ parameters: BERElement, in bytes: UnsafeBufferPointer<UInt8>, of part: String, file: String)
        throws
    {
        guard let pair = parameters.children(bytes), pair.count == 2, pair[1].tag == V_ASN1_INTEGER else { return }
        try check(iterations: integer(pair[1], in: bytes), of: part, file: file)
    }

    /// A DER INTEGER's value; `Int.max` when it does not fit (so it is over every limit), negative as stored.
    private static func integer(_ element: BERElement, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let content = bytes[element.contentStart..<element.contentEnd]
        guard element.tag == V_ASN1_INTEGER, let first = content.first else { return 0 }
        let significant = content.drop { $0 == 0 }
        guard significant.count <= 7 || (first & 0x80 != 0 && content.count <= 8) else { return first & 0x80 != 0 ? -1 : Int.max }
        var value = first & 0x80 != 0 ? -1 : 0
        for byte in content { value = value << 8 | Int(byte) }
        return value
    }

    private static func check(iterations: Int, of part: String, file: String) throws {
        guard iterations < 1 || iterations > maxIterations else { return }
        LibCryptoErrors.clear()
        throw Diagnostic.codeSign(
            .identityInvalid,
            "\(part) asks for \(iterations == Int.max ? "more than 2^56" : String(iterations)) iterations, "
                + "outside the 1 to \(maxIterations) adhocbuild computes", file: file, hint: reexportHint)
    }

    private static let reexportHint = "re-export the identity (Keychain Access or openssl pkcs12 -export use 2048)"
}
