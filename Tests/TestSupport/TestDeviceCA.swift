import Foundation

/// A certificate authority that imitates Apple's device CA, made with the `openssl` command in a test's
/// folder: a root, an intermediate ("Test iPhone Device CA") and device certificates it issues, and the
/// replies a device POSTs to a Profile Service (a plist written by Python's `plistlib`, signed with
/// `openssl cms -sign -nodetach`, the intermediate included as a phone includes Apple's).
public struct TestDeviceCA {
    /// How a device certificate is made.
    public enum Kind: Sendable {
        /// Key usage digitalSignature and keyEncipherment, no extended key usage: valid for 30 days.
        case plain
        /// With extended key usage clientAuth, which OpenSSL's default S/MIME purpose check refuses.
        case clientAuth
        /// Valid only during 2020.
        case expired
    }

    /// A device's certificate and key (PEM files).
    public struct Device: Sendable {
        public var certificate: String
        public var key: String
    }

    /// The folder holding every file.
    public let folder: String
    public var rootPEM: String { folder + "/root.pem" }
    public var intermediatePEM: String { folder + "/int.pem" }

    /// Makes the root and the intermediate in `folder` (created if missing); `name` goes into their subjects.
    public static func make(in folder: String, name: String = "Test") throws -> TestDeviceCA {
        try FileManager.default.createDirectory(atPath: folder + "/issued", withIntermediateDirectories: true)
        let ca = TestDeviceCA(folder: folder)
        try Data(config.utf8).write(to: URL(fileURLWithPath: folder + "/ca.cnf"))
        try Data().write(to: URL(fileURLWithPath: folder + "/index.txt"))
        try Data("1000\n".utf8).write(to: URL(fileURLWithPath: folder + "/serial"))
        try ca.openssl(
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "root.key", "-out", "root.pem", "-days", "30", "-subj",
            "/CN=\(name) Root CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        try ca.openssl(
            "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "int.key", "-out", "int.csr", "-subj", "/CN=\(name) iPhone Device CA"
        )
        try ca.openssl(
            "ca", "-batch", "-config", "ca.cnf", "-notext", "-cert", "root.pem", "-keyfile", "root.key", "-in", "int.csr", "-out",
            "int.pem",
            "-days", "30", "-extensions", "ca_ext")
        return ca
    }

    /// Issues a device certificate whose subject's CN is `name`, as Apple's name a device by a UUID.
    public func device(_ name: String, kind: Kind = .plain) throws -> Device {
        let base = folder + "/" + name
        try openssl(
            "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out", base + ".csr", "-subj",
            "/C=US/O=Apple Inc./OU=iPhone/CN=\(name)")
        var arguments = [
            "ca", "-batch", "-config", "ca.cnf", "-notext", "-cert", "int.pem", "-keyfile", "int.key", "-in", base + ".csr", "-out",
            base + ".pem", "-extensions", kind == .clientAuth ? "device_client" : "device"
        ]
        arguments += kind == .expired ? ["-startdate", "20200101000000Z", "-enddate", "20210101000000Z"] : ["-days", "30"]
        try openssl(arguments)
        return Device(certificate: base + ".pem", key: base + ".key")
    }

    /// The XML plist Python's `plistlib` writes for `value` (any JSON value: a dict of strings for a
    /// device's reply, or something else to test a receiver).
    public static func plist(_ value: Any) throws -> Data {
        let json = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        let python = try ProcessResult.which("python3") ?? { throw SetupFailure("python3 is needed to write a device's reply") }()
        let result = try ProcessResult.run(
            python, ["-c", "import json, plistlib, sys; sys.stdout.buffer.write(plistlib.dumps(json.loads(sys.stdin.read())))"],
            input: json)
        guard result.status == 0 else { throw SetupFailure("plistlib failed: \(result.stderrText)") }
        return result.stdout
    }

    /// A device's reply: the attributes a Profile Service asks for, and the challenge.
    public static func reply(udid: String, challenge: String, name: String = "Ana's iPhone", product: String = "iPhone15,2") throws -> Data
    {
        try plist([
            "UDID": udid, "PRODUCT": product, "VERSION": "22A3354", "SERIAL": "F2LXK0ABCDEF", "DEVICE_NAME": name,
            "CHALLENGE": challenge
        ])
    }

    /// An enrollment challenge made by Python's `hmac` from the format `EnrollmentChallenge` documents
    /// (`v1.<issued>.<expires>.<nonce>.<mac>`, the MAC over `adhocbuild-udid-v1|issued|expires|nonce|identifier`),
    /// with the key in `keyFile`: a second implementation that the receiver must agree with.
    public static func challenge(keyFile: String, identifier: String, issued: Date, expires: Date) throws -> String {
        let script = """
            import base64, hashlib, hmac, os, sys
            key = open(sys.argv[1], 'rb').read()
            b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b'=').decode()
            nonce = b64(os.urandom(16))
            text = '|'.join(['adhocbuild-udid-v1', sys.argv[3], sys.argv[4], nonce, sys.argv[2]])
            mac = b64(hmac.new(key, text.encode(), hashlib.sha256).digest())
            print('.'.join(['v1', sys.argv[3], sys.argv[4], nonce, mac]), end='')
            """
        let python = try ProcessResult.which("python3") ?? { throw SetupFailure("python3 is needed to make a challenge") }()
        let seconds = [issued, expires].map { String(Int64($0.timeIntervalSince1970)) }
        let result = try ProcessResult.run(python, ["-c", script, keyFile, identifier] + seconds)
        guard result.status == 0 else { throw SetupFailure("python3 could not make a challenge: \(result.stderrText)") }
        return result.stdoutText
    }

    /// `content` signed by `device` as a DER CMS SignedData with the content inside (or beside it, when
    /// `detached`) and the intermediate among its certificates.
    public func sign(_ content: Data, by device: Device, detached: Bool = false) throws -> Data {
        let name = UUID().uuidString
        let input = folder + "/\(name).plist", output = folder + "/\(name).p7s"
        try content.write(to: URL(fileURLWithPath: input))
        defer {
            unlink(input)
            unlink(output)
        }
        try openssl(
            [
                "cms", "-sign", "-binary", "-outform", "DER", "-md", "sha256", "-in", input, "-signer", device.certificate, "-inkey",
                device.key,
                "-certfile", intermediatePEM, "-out", output
            ] + (detached ? [] : ["-nodetach"]))
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    func openssl(_ arguments: String...) throws { try openssl(arguments) }

    func openssl(_ arguments: [String]) throws {
        let openssl = try ProcessResult.which("openssl") ?? { throw SetupFailure("openssl is not on PATH; install the openssl package") }()
        let result = try ProcessResult.run(openssl, arguments, in: folder)
        guard result.status == 0 else { throw SetupFailure("openssl \(arguments.joined(separator: " ")) failed: \(result.stderrText)") }
    }

    /// `openssl ca`'s configuration: any subject with a CN, every certificate recorded in `index.txt`.
    static let config = """
        [ca]
        default_ca = test
        [test]
        dir = .
        database = index.txt
        new_certs_dir = issued
        serial = serial
        default_md = sha256
        unique_subject = no
        policy = anything
        [anything]
        countryName = optional
        organizationName = optional
        organizationalUnitName = optional
        commonName = supplied
        [ca_ext]
        basicConstraints = critical,CA:TRUE
        keyUsage = critical,keyCertSign,cRLSign
        [device]
        basicConstraints = critical,CA:FALSE
        keyUsage = critical,digitalSignature,keyEncipherment
        [device_client]
        basicConstraints = critical,CA:FALSE
        keyUsage = critical,digitalSignature,keyEncipherment
        extendedKeyUsage = clientAuth

        """
}
