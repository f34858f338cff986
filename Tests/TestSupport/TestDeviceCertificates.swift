import Foundation

/// A throwaway device PKI made with the `openssl` command in a test's folder, shaped like Apple's: a root
/// ("Test Root CA"), an intermediate ("Test iPhone Device CA") and device certificates it issues, plus a
/// device of an unrelated root. Nothing is kept in the repository.
public struct TestDeviceCertificates {
    public let folder: TemporaryFolder
    /// The root and the intermediate (PEM).
    public var rootPEM: String { folder.path("root.pem") }
    public var intermediatePEM: String { folder.path("int.pem") }
    /// The other root (PEM), which issued ``Device/foreign``.
    public var otherRootPEM: String { folder.path("other-root.pem") }

    /// The device certificates made.
    public enum Device: String, CaseIterable, Sendable {
        /// No EKU, valid for 30 days.
        case plain = "dev"
        /// EKU clientAuth only (fails the S/MIME purpose).
        case clientAuth = "dev-client"
        /// Valid 2020-01-01 to 2021-01-01.
        case expired = "dev-expired"
        /// Issued by the other root.
        case foreign = "dev-foreign"
    }

    public func certificate(_ device: Device) -> String { folder.path("\(device.rawValue).pem") }
    public func key(_ device: Device) -> String { folder.path("\(device.rawValue).key") }

    public static func make(in folder: TemporaryFolder) throws -> TestDeviceCertificates {
        let pki = TestDeviceCertificates(folder: folder)
        _ = try folder.write(
            "ext.cnf",
            """
            [ca]
            basicConstraints=critical,CA:TRUE
            keyUsage=critical,keyCertSign,cRLSign
            [dev]
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature,keyEncipherment
            [devclient]
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature,keyEncipherment
            extendedKeyUsage=clientAuth

            """)
        _ = try folder.write(
            "ca.cnf",
            """
            [ca]
            default_ca=test
            [test]
            database=index.txt
            serial=serial.txt
            new_certs_dir=.
            default_md=sha256
            policy=any
            copy_extensions=none
            unique_subject=no
            [any]
            commonName=supplied

            """)
        _ = try folder.write("index.txt", "")
        _ = try folder.write("serial.txt", "1000\n")
        for (name, subject) in [("root", "/CN=Test Root CA"), ("other-root", "/CN=Other Root CA")] {
            try pki.run(
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).pem", "-subj", subject,
                "-days", "30", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        }
        try pki.request("int", "/CN=Test iPhone Device CA/OU=Test iPhone/O=Test Inc.")
        try pki.issue("int", by: "root", extensions: "ca")
        for device in Device.allCases {
            try pki.request(device.rawValue, "/C=US/O=Test Inc./OU=iPhone/CN=\(UUID().uuidString)")
        }
        try pki.issue(Device.plain.rawValue, by: "int", extensions: "dev")
        try pki.issue(Device.clientAuth.rawValue, by: "int", extensions: "devclient")
        try pki.issue(Device.foreign.rawValue, by: "other-root", extensions: "dev")
        // `openssl x509 -req` has no start date; `openssl ca` has.
        try pki.run(
            "ca", "-batch", "-config", "ca.cnf", "-cert", "int.pem", "-keyfile", "int.key", "-in", "dev-expired.csr", "-out",
            "dev-expired.pem", "-startdate", "20200101000000Z", "-enddate", "20210101000000Z", "-extfile", "ext.cnf", "-extensions",
            "dev", "-notext")
        return pki
    }

    /// Signs `content` as `device` does (attached, binary, SHA-256, the intermediate included unless the
    /// device is foreign); `detached` leaves the content out. Returns the DER.
    public func sign(_ content: Data, as device: Device, detached: Bool = false) throws -> Data {
        let name = "content-\(UUID().uuidString)"
        _ = try folder.write(name, content)
        var arguments = [
            "cms", "-sign", "-binary", "-outform", "DER", "-md", "sha256", "-in", name, "-signer", certificate(device), "-inkey",
            key(device), "-out", name + ".p7s"
        ]
        if !detached { arguments.append("-nodetach") }
        if device != .foreign { arguments += ["-certfile", intermediatePEM] }
        try run(arguments)
        return try Data(contentsOf: URL(fileURLWithPath: folder.path(name + ".p7s")))
    }

    private func request(_ name: String, _ subject: String) throws {
        try run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject)
    }

    private func issue(_ name: String, by issuer: String, extensions: String) throws {
        try run(
            "x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key", "-CAcreateserial", "-out",
            "\(name).pem", "-days", "30", "-extfile", "ext.cnf", "-extensions", extensions)
    }

    /// Runs `openssl` with `arguments` in the folder; fails the setup when it fails.
    public func run(_ arguments: String...) throws { try run(arguments) }

    /// Runs `openssl` with `arguments` in the folder; fails the setup when it fails.
    public func run(_ arguments: [String]) throws {
        try TestIdentities(folder: folder).run(arguments)
    }
}
