import Foundation

/// Signing identities made with the `openssl` command in a test's temporary folder: nothing secret is
/// kept in the repository. The password of every p12 is ``password``.
public struct TestIdentities {
    public static let password = "s3cret-Pa55"

    public let folder: TemporaryFolder
    /// A self-signed RSA 2048 certificate and key, exported with AES (OpenSSL 3's default).
    public var rsa: String { folder.path("rsa.p12") }
    /// The same RSA identity exported with `-legacy` (RC2-40 and 3DES, as macOS Keychain exports).
    public var rsaLegacy: String { folder.path("rsa-legacy.p12") }
    /// A self-signed EC P-256 certificate and key.
    public var ec: String { folder.path("ec.p12") }
    /// The EC key with the RSA certificate: a key that does not match the certificate.
    public var mismatched: String { folder.path("mismatched.p12") }
    /// A leaf issued by a test CA, with the CA certificate in the p12.
    public var leafWithCA: String { folder.path("leaf.p12") }
    /// The test CA certificate (PEM) and the EC certificate (PEM), for `--chain`.
    public var caPEM: String { folder.path("ca.crt") }
    public var ecPEM: String { folder.path("ec.crt") }
    /// A file holding the password and a trailing newline.
    public var passwordFile: String { folder.path("password.txt") }

    public static func make(in folder: TemporaryFolder) throws -> TestIdentities {
        let identities = TestIdentities(folder: folder)
        try identities.run(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "rsa.key", "-out", "rsa.crt", "-days", "30",
            "-subj", "/CN=Apple Development: Test RSA (ABCDE12345)/OU=ABCDE12345/O=Test Team/C=US")
        try identities.run(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ec.key", "-out", "ec.crt",
            "-days", "30", "-subj", "/CN=Apple Development: Test EC (ABCDE12345)/OU=ABCDE12345/O=Test Team/C=US")
        try identities.run(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "30", "-subj",
            "/CN=Test CA/O=Test")
        try identities.run(
            "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj",
            "/CN=Test Leaf/OU=ABCDE12345")
        try identities.run(
            "x509", "-req", "-in", "leaf.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.crt", "-days", "30")
        let pass = "pass:\(password)"
        try identities.run("pkcs12", "-export", "-inkey", "rsa.key", "-in", "rsa.crt", "-out", "rsa.p12", "-passout", pass)
        try identities.run(
            "pkcs12", "-export", "-legacy", "-inkey", "rsa.key", "-in", "rsa.crt", "-out", "rsa-legacy.p12", "-passout", pass)
        try identities.run("pkcs12", "-export", "-inkey", "ec.key", "-in", "ec.crt", "-out", "ec.p12", "-passout", pass)
        // `openssl pkcs12 -export` refuses a certificate that does not match the key, so the RSA certificate
        // goes in beside the EC key as an extra certificate.
        try identities.run(
            "pkcs12", "-export", "-inkey", "ec.key", "-nocerts", "-certfile", "rsa.crt", "-out", "mismatched.p12", "-passout", pass)
        try identities.run(
            "pkcs12", "-export", "-inkey", "leaf.key", "-in", "leaf.crt", "-certfile", "ca.crt", "-out", "leaf.p12", "-passout", pass)
        _ = try folder.write("password.txt", password + "\n")
        return identities
    }

    /// Runs `openssl` with `arguments` in the folder; fails the setup when it fails.
    public func run(_ arguments: String...) throws { try run(arguments) }

    /// Runs `openssl` with `arguments` in the folder; fails the setup when it fails.
    public func run(_ arguments: [String]) throws {
        guard let openssl = ProcessResult.which("openssl") else {
            throw SetupFailure("openssl is not on PATH; install the openssl package")
        }
        let result = try ProcessResult.run(openssl, arguments, in: folder.url.path)
        guard result.status == 0 else { throw SetupFailure("openssl \(arguments.joined(separator: " ")) failed: \(result.stderrText)") }
    }
}
