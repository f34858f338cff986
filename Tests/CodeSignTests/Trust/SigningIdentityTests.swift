import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

/// Loading PKCS#12 identities made by `openssl`: RSA and EC, modern and legacy encryption, chains, and the
/// refusals (wrong password, key not matching the certificate), whose messages never hold the password.
@Suite struct SigningIdentityTests {
    @Test func loadsRSAAndECIdentitiesModernAndLegacy() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            for (path, name) in [(made.rsa, "Test RSA"), (made.rsaLegacy, "Test RSA"), (made.ec, "Test EC")] {
                let identity = try SigningIdentity(p12: path, password: .file(made.passwordFile))
                #expect(identity.certificate.commonName == "Apple Development: \(name) (ABCDE12345)", "\(path)")
                #expect(identity.certificate.organizationalUnit == "ABCDE12345")
                #expect(identity.keyMatchesCertificate)
                #expect(identity.chain.isEmpty)
                #expect(identity.file == path)
            }
            #expect(try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile)).key.kind == .rsa(bits: 2048))
            #expect(try SigningIdentity(p12: made.ec, password: .file(made.passwordFile)).key.kind == .ec(bits: 256))
        }
    }

    @Test func passwordSourcesReadTheEnvironmentAndFilesWithoutTheTrailingNewline() throws {
        try withTemporaryFolder { folder in
            #expect(try PasswordSource.environment("SIGN_PW").read(environment: ["SIGN_PW": "a b\n"]) == "a b\n")
            #expect(throws: Diagnostic.codeSign(.identityInvalid, "environment variable SIGN_PW is not set", location: "password")) {
                try PasswordSource.environment("SIGN_PW").read(environment: [:])
            }
            let files = [("lf", "pw\n", "pw"), ("crlf", "pw\r\n", "pw"), ("none", "pw", "pw"), ("two", "pw\n\n", "pw\n")]
            for (name, text, expected) in files {
                let path = try folder.write(name, text)
                #expect(try PasswordSource.file(path).read() == expected, "\(name)")
            }
            let missing = folder.path("missing")
            #expect(throws: Diagnostic.codeSign(.unreadable, "cannot read the password file", file: missing)) {
                try PasswordSource.file(missing).read()
            }
        }
    }

    @Test func aWrongPasswordIsOneLineNamingTheFileAndNeverThePassword() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            for path in [made.rsa, made.rsaLegacy, made.ec] {
                let wrong = "not-" + TestIdentities.password
                let wrongFile = try folder.write("wrong.txt", wrong)
                let error = try #require(expectCodeSign(.wrongPassword) { try SigningIdentity(p12: path, password: .file(wrongFile)) })
                #expect(error.description == "\(path): wrong password, or not a PKCS#12 file")
                #expect(!error.report.contains(wrong) && !error.report.contains(TestIdentities.password))
            }
            // Not a p12 at all: the same line.
            let notP12 = made.caPEM
            let error = try #require(
                expectCodeSign(.wrongPassword) { try SigningIdentity(p12: notP12, password: .file(made.passwordFile)) })
            #expect(error.description == "\(notP12): wrong password, or not a PKCS#12 file")
            let missing = folder.path("missing.p12")
            #expect(throws: Diagnostic.codeSign(.unreadable, "cannot read the PKCS#12 identity file", file: missing)) {
                try SigningIdentity(p12: missing, password: .file(made.passwordFile))
            }
            // Certificates without their key: said so, not "cannot decrypt … no reason given".
            try made.run(
                "pkcs12", "-export", "-nokeys", "-in", "rsa.crt", "-out", "nokey.p12", "-passout", "pass:" + TestIdentities.password)
            #expect(
                throws: Diagnostic.codeSign(
                    .identityInvalid,
                    "holds certificates but no private key, so it cannot sign; export the identity with its key "
                        + "(Keychain Access: My Certificates, the certificate with its key, as .p12)", file: folder.path("nokey.p12"))
            ) {
                try SigningIdentity(p12: folder.path("nokey.p12"), password: .file(made.passwordFile))
            }
        }
    }

    /// Issue 31: a MAC asking for more iterations than any exporter uses is refused before a key is
    /// derived (2^31 - 1 held the signer for minutes); 2,048, what exporters write, and a generous count load.
    @Test func aMACWithTooManyIterationsIsRefusedAtOnce() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let pass = "pass:" + TestIdentities.password
            for (name, iterations) in [("many.p12", 1_000_001), ("fine.p12", 1_000_000), ("usual.p12", 2048)] {
                try made.run(
                    "pkcs12", "-export", "-inkey", "rsa.key", "-in", "rsa.crt", "-keypbe", "NONE", "-certpbe", "NONE", "-iter",
                    String(iterations), "-out", name, "-passout", pass)
            }
            let error = try #require(
                expectCodeSign(.identityInvalid) {
                    try SigningIdentity(p12: folder.path("many.p12"), password: .file(made.passwordFile))
                })
            #expect(
                error.description
                    == "\(folder.path("many.p12")): its MAC asks for 1000001 iterations, outside the 1 to 1000000 adhocbuild computes")
            for name in ["fine.p12", "usual.p12"] {
                #expect(try SigningIdentity(p12: folder.path(name), password: .file(made.passwordFile)).certificate.commonName != nil)
            }
        }
    }

    /// A p12 written by Python's `cryptography`, which takes the MAC's iteration count (2,048) apart
    /// from the encryption's (`rounds`), as `openssl pkcs12` 3.0 cannot; `withCertificate: false` leaves
    /// the certificate out, so the private key's bag is the only encrypted part.
    static func p12(
        _ name: String, rounds: Int, scheme: String, withCertificate: Bool, made: TestIdentities, in folder: TemporaryFolder
    ) throws -> String {
        let script = """
            import sys
            from cryptography import x509
            from cryptography.hazmat.primitives import hashes, serialization
            from cryptography.hazmat.primitives.serialization import pkcs12
            key = serialization.load_pem_private_key(open('rsa.key', 'rb').read(), None)
            cert = x509.load_pem_x509_certificate(open('rsa.crt', 'rb').read()) if sys.argv[4] == 'yes' else None
            encryption = (serialization.PrivateFormat.PKCS12.encryption_builder().kdf_rounds(int(sys.argv[2]))
                          .key_cert_algorithm(getattr(pkcs12.PBES, sys.argv[3])).hmac_hash(hashes.SHA256())
                          .build(open('password.txt', 'rb').read().strip()))
            open(sys.argv[1], 'wb').write(pkcs12.serialize_key_and_certificates(b'test', key, cert, None, encryption))
            """
        let arguments = ["python3", "-c", script, name, String(rounds), scheme, withCertificate ? "yes" : "no"]
        let result = try ProcessResult.run("/usr/bin/env", arguments, in: folder.url.path)
        try #require(result.status == 0, "\(result.stderrText)")
        return folder.path(name)
    }

    /// Issue 31: each encrypted part of a PKCS#12 file names its own iteration count apart from the
    /// MAC's: the certificates' encryption (PBES2 with PBKDF2) and the private key's (PBES2, and
    /// PKCS#12's own 3DES scheme) are each refused over the limit, before that work is done; the same
    /// file with 2,048 iterations loads.
    @Test func encryptedPartsAskingForTooManyIterationsAreRefused() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let made = try TestIdentities.make(in: folder)
            let cases: [(name: String, scheme: String, withCertificate: Bool, part: String)] = [
                ("certs.p12", "PBESv2SHA256AndAES256CBC", true, "the encryption of its certificates"),
                ("key-pbes2.p12", "PBESv2SHA256AndAES256CBC", false, "the encryption of its private key"),
                ("key-3des.p12", "PBESv1SHA1And3KeyTripleDESCBC", false, "the encryption of its private key")
            ]
            for (name, scheme, withCertificate, part) in cases {
                let path = try Self.p12(name, rounds: 1_000_001, scheme: scheme, withCertificate: withCertificate, made: made, in: folder)
                let error = try #require(
                    expectCodeSign(.identityInvalid, "\(name)") {
                        try SigningIdentity(p12: path, password: .file(made.passwordFile))
                    })
                #expect(error.description == "\(path): \(part) asks for 1000001 iterations, outside the 1 to 1000000 adhocbuild computes")
            }
            let usual = try Self.p12(
                "usual.p12", rounds: 2048, scheme: "PBESv2SHA256AndAES256CBC", withCertificate: true, made: made, in: folder)
            #expect(try SigningIdentity(p12: usual, password: .file(made.passwordFile)).keyMatchesCertificate)
        }
    }

    @Test func aKeyThatDoesNotMatchItsCertificateIsRefused() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let error = try #require(
                expectCodeSign(.identityInvalid) {
                    try SigningIdentity(p12: made.mismatched, password: .file(made.passwordFile))
                })
            #expect(
                error.description
                    == "\(made.mismatched): the PKCS#12 file holds no certificate matching its private key (1 other certificates)")
            #expect(!error.report.contains(TestIdentities.password))
            // The key matching check itself, across identities.
            let rsa = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            let ec = try SigningIdentity(p12: made.ec, password: .file(made.passwordFile))
            #expect(!rsa.key.matches(ec.certificate))
            #expect(!ec.key.matches(rsa.certificate))
        }
    }

    @Test func theChainComesFromTheP12ThenTheChainFile() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let leaf = try SigningIdentity(p12: made.leafWithCA, password: .file(made.passwordFile))
            #expect(leaf.certificate.commonName == "Test Leaf")
            #expect(leaf.chain.map(\.commonName) == ["Test CA"])
            // A PEM holding the CA again and another certificate: the CA is not repeated.
            let pem = try folder.write(
                "chain.pem",
                String(decoding: try Data(contentsOf: URL(fileURLWithPath: made.caPEM)), as: UTF8.self)
                    + String(decoding: try Data(contentsOf: URL(fileURLWithPath: made.ecPEM)), as: UTF8.self))
            let withChain = try SigningIdentity(p12: made.leafWithCA, password: .file(made.passwordFile), chainPEM: pem)
            #expect(withChain.chain.map(\.commonName) == ["Test CA", "Apple Development: Test EC (ABCDE12345)"])
            let empty = try folder.write("empty.pem", "no certificates here\n")
            #expect(throws: Diagnostic.codeSign(.identityInvalid, "the certificate chain file holds no PEM certificate", file: empty)) {
                try SigningIdentity(p12: made.leafWithCA, password: .file(made.passwordFile), chainPEM: empty)
            }
        }
    }
}
