import Foundation
import TestSupport
import Testing

/// The receiving end of an enrollment as a phone meets it: nginx on 127.0.0.1 over HTTPS hands POSTs to
/// `adhocbuild devices receive` through fcgiwrap, all started and stopped by the test; each device's reply
/// is a plist written by Python's plistlib and signed with `openssl cms` by a device certificate of a test
/// CA; curl sends it; the store is read back with plistlib.
@Suite(.serialized) struct DeviceEnrollmentHTTPSTests {
    /// The enrollment profile's identifier, which challenges are bound to: the one `receive` derives
    /// from the `--thanks` URL's host when it is not given (the wrappers leave it out).
    static let identifier = "localhost.udid"

    /// nginx, fcgiwrap, the device CAs and the receiver's files for one test.
    final class Server {
        let folder: TemporaryFolder
        let ca: TestDeviceCA
        let otherCA: TestDeviceCA
        let tls: String
        let keyFile: String
        let store: String
        let base: String
        let thanks: String
        let fcgiwrap: FcgiwrapServer
        let nginx: NginxServer

        init(folder: TemporaryFolder) throws {
            self.folder = folder
            ca = try TestDeviceCA.make(in: folder.path("ca"))
            otherCA = try TestDeviceCA.make(in: folder.path("other-ca"), name: "Other")
            tls = folder.path("tls")
            try DeviceEnrollmentHTTPSTests.makeTLS(in: tls)
            keyFile = try folder.write("udid.key", Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
            try FileManager.default.createDirectory(atPath: folder.path("store"), withIntermediateDirectories: true)
            store = folder.path("store/devices.plist")
            let port = try FreePort.find()
            base = "https://localhost:\(port)"
            thanks = base + "/udid/thanks.html"
            let root = folder.path("www")
            _ = try folder.create("www/udid/thanks.html", Data("<p>Thank you</p>\n".utf8))
            // fcgiwrap starts a program without arguments: a wrapper per set of options.
            var scripts: [String: String] = [:]
            for (name, extra) in [("receive", ""), ("receive-lenient", " --ignore-expiry"), ("receive-small", " --max-body 8192")] {
                let script = try folder.create(
                    "cgi/\(name)",
                    Data(
                        """
                        #!/bin/sh
                        exec '\(AdhocBuildBinary.path)' devices receive --store '\(store)' --key '\(keyFile)' \
                        --trust '\(ca.rootPEM)' --thanks '\(thanks)'\(extra)

                        """.utf8))
                chmod(script, 0o755)
                scripts["/udid/" + name] = script
            }
            let fcgiwrap = try FcgiwrapServer(
                executable: try #require(FcgiwrapServer.executable), scripts: scripts.values.sorted(), workers: 8,
                stderrPath: folder.path("fcgiwrap.log"))
            self.fcgiwrap = fcgiwrap
            let locations = scripts.sorted { $0.key < $1.key }.flatMap {
                FcgiwrapServer.nginxLocation(path: $0.key, script: $0.value, socket: fcgiwrap.socket)
            }
            do {
                nginx = try NginxServer(
                    executable: try #require(NginxServer.executable),
                    config: NginxServer.config(
                        port: port, root: root, runtime: folder.path("nginx"), listen: "ssl",
                        server: ["ssl_certificate     \(tls)/server.pem;", "ssl_certificate_key \(tls)/server.key;"]
                            + FcgiwrapServer.profileTypeLocation + locations),
                    runtime: folder.path("nginx"), port: port)
            } catch {
                fcgiwrap.stop()
                throw error
            }
        }

        func stop() {
            nginx.stop()
            fcgiwrap.stop()
        }

        /// A valid challenge, or one made with another key or already expired.
        func challenge(forged: Bool = false, expired: Bool = false) throws -> String {
            let key = forged ? try folder.write("forged-\(UUID().uuidString).key", Data(repeating: 7, count: 32)) : keyFile
            let now = Date()
            return try TestDeviceCA.challenge(
                keyFile: key, identifier: DeviceEnrollmentHTTPSTests.identifier, issued: now.addingTimeInterval(expired ? -7200 : -60),
                expires: now.addingTimeInterval(expired ? -3600 : 3600))
        }

        /// A signed reply of a new device of `ca` with `udid`.
        func post(udid: String, name: String = "Ana's iPhone", kind: TestDeviceCA.Kind = .plain, from issuer: TestDeviceCA? = nil)
            throws -> Data
        {
            let issuer = issuer ?? ca
            let device = try issuer.device("device-\(UUID().uuidString)", kind: kind)
            return try issuer.sign(TestDeviceCA.reply(udid: udid, challenge: try challenge(), name: name), by: device)
        }

        /// Sends `body` to `path` with curl; returns the status and the Location.
        func send(
            _ body: Data?, to path: String = "/udid/receive", contentType: String = "application/pkcs7-signature",
            method: String = "POST"
        ) throws -> (status: Int, location: String) {
            var arguments = ["-sS", "--cacert", tls + "/ca.pem", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "-X", method]
            if let body {
                let file = try folder.write("post-\(UUID().uuidString).p7s", body)
                arguments += ["-H", "Content-Type: \(contentType)", "--data-binary", "@" + file]
            }
            let result = try ProcessResult.run(try #require(ProcessResult.which("curl")), arguments + [base + path])
            try #require(result.status == 0, "curl: \(result.stderrText)")
            let parts = result.stdoutText.split(separator: " ", maxSplits: 1).map(String.init)
            return (Int(parts[0]) ?? 0, parts.count > 1 ? parts[1] : "")
        }

        /// The lines the receiver logged so far.
        var logLines: [String] {
            ((try? String(contentsOfFile: fcgiwrap.stderrPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        /// The devices in the store, read with plistlib: UDID, Name and Model of each.
        func storedDevices() throws -> [[String: String]] {
            guard FileManager.default.fileExists(atPath: store) else { return [] }
            let script = """
                import json, plistlib, sys
                store = plistlib.load(open(sys.argv[1], 'rb'))
                print(json.dumps([{k: d.get(k, '') for k in ('UDID', 'Name', 'Model')} for d in store.get('Devices', [])]))
                """
            let result = try ProcessResult.run(try #require(ProcessResult.which("python3")), ["-c", script, store])
            try #require(result.status == 0, "plistlib: \(result.stderrText)")
            return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: String]])
        }

        /// The SHA-256 of the store (sha256sum), and the names in its folder.
        func storeState() throws -> (sha256: String, names: [String]) {
            let sum = try ProcessResult.run(try #require(ProcessResult.which("sha256sum")), [store])
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path("store")).sorted()
            return (String(sum.stdoutText.prefix(64)), names)
        }
    }

    /// Runs `body` with the servers up, stopping them afterwards; skips (or fails, when required) without the tools.
    func withServer(_ body: (Server) throws -> Void) throws {
        for tool in ["nginx", "fcgiwrap", "openssl", "curl", "python3", "sha256sum"]
        where ProcessResult.which(tool) == nil && !FileManager.default.fileExists(atPath: "/usr/sbin/\(tool)") {
            if Fixtures.isRequired { Issue.record("\(tool) is required in CI for the enrollment test (make deps installs it)") }
            print("skipped: \(tool) is not installed")
            return
        }
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let server = try Server(folder: folder)
            defer { server.stop() }
            try body(server)
        }
    }

    /// A throwaway CA and a certificate for localhost signed by it, in `folder`.
    static func makeTLS(in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: folder + "/san.cnf"))
        let openssl = try #require(ProcessResult.which("openssl"))
        for arguments in [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=adhocbuild test CA", "-keyout", "ca.key",
                "-out", "ca.pem"
            ],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr"],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile",
                "san.cnf",
                "-out", "server.pem"
            ]
        ] {
            let result = try ProcessResult.run(openssl, arguments, in: folder)
            try #require(result.status == 0, "openssl \(arguments[0]): \(result.stderrText)")
        }
    }

    static let udid = "00008120-001A2B3C4D5E6F70"

    /// The README's nginx block is the `location`s these tests give nginx, with the README's paths.
    @Test func theREADMEsNginxBlockIsTheLocationTheTestsServe() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let expected =
            FcgiwrapServer.profileTypeLocation + [""]
            + FcgiwrapServer.nginxLocation(
                path: "/udid/receive", script: "/usr/lib/cgi-bin/adhocbuild-udid", socket: "/run/fcgiwrap.socket")
        let blocks = readme.components(separatedBy: "```nginx\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        #expect(
            blocks.contains(expected.joined(separator: "\n")), "README.md has no nginx block equal to:\n\(expected.joined(separator: "\n"))"
        )
    }

    /// The whole flow as a tester meets it: the page and profile `devices enroll-page` writes, served by the
    /// README's nginx configuration; the profile's own URL and challenge, answered by a device, are stored.
    @Test func theProfileEnrollPageWritesIsServedAsAProfileAndItsChallengeIsAccepted() throws {
        try withServer { server in
            let page = server.folder.path("www/udid")
            let made = try AdhocBuildBinary.run([
                "devices", "enroll-page", "--url", server.base + "/udid/", "--key", server.keyFile, "-o", page
            ])
            #expect(made.status == 0, "\(made.stderrText)")
            let curl = try #require(ProcessResult.which("curl"))
            let profile = server.folder.path("downloaded.mobileconfig")
            let get = try ProcessResult.run(
                curl,
                [
                    "-sS", "--cacert", server.tls + "/ca.pem", "-o", profile, "-w", "%{http_code} %{content_type}",
                    server.base + "/udid/enroll.mobileconfig"
                ])
            #expect(get.stdoutText == "200 application/x-apple-aspen-config", "\(get.stdoutText) \(get.stderrText)")
            let read = try ProcessResult.run(
                try #require(ProcessResult.which("python3")),
                [
                    "-c",
                    "import plistlib, sys; c = plistlib.load(open(sys.argv[1], 'rb'))['PayloadContent']; print(c['URL']); print(c['Challenge'])",
                    profile
                ])
            let lines = read.stdoutText.split(separator: "\n").map(String.init)
            try #require(lines.count == 2, "plistlib: \(read.stderrText)")
            #expect(lines[0] == server.base + "/udid/receive")
            let device = try server.ca.device("enrolled", kind: .plain)
            let reply = try server.ca.sign(TestDeviceCA.reply(udid: Self.udid, challenge: lines[1]), by: device)
            let answer = try server.send(reply, to: String(lines[0].dropFirst(server.base.count)))
            #expect(answer.status == 301 && answer.location.hasPrefix(server.base + "/udid/thanks.html?"), "\(server.logLines)")
            #expect(try server.storedDevices().map { $0["UDID"] } == [Self.udid])
            let thanks = try server.send(nil, to: "/udid/thanks.html", method: "GET")
            #expect(thanks.status == 200)
        }
    }

    @Test func aDevicesSignedReplyIsStoredAndSentToTheThankYouPageWithItsNameAndModel() throws {
        try withServer { server in
            let answer = try server.send(try server.post(udid: Self.udid, name: "Ana's iPhone & <b>"))
            #expect(answer.status == 301)
            #expect(answer.location == server.thanks + "?name=Ana%27s%20iPhone%20%26%20%3Cb%3E&model=iPhone15%2C2&udid=\(Self.udid)")
            let page = try server.send(nil, to: String(answer.location.dropFirst(server.base.count)), method: "GET")
            #expect(page.status == 200)
            #expect(try server.storedDevices() == [["UDID": Self.udid, "Name": "Ana's iPhone & <b>", "Model": "iPhone15,2"]])
            let log = server.logLines
            #expect(log.count == 1)
            #expect(
                log.first?.hasPrefix(
                    "adhocbuild devices receive: 301 stored \(Self.udid) \"Ana's iPhone & <b>\" iPhone15,2 signer \"Test iPhone Device CA\""
                ) == true, "\(log)")
        }
    }

    @Test func aDeviceCertificateWithAnyPurposeIsAcceptedAndAnExpiredOneOnlyWithIgnoreExpiry() throws {
        try withServer { server in
            let clientAuth = try server.post(udid: String(repeating: "ab", count: 20), kind: .clientAuth)
            #expect(try server.send(clientAuth).status == 301)
            let expired = try server.post(udid: "00008030-0001A2B3C4D5E6F7", kind: .expired)
            let before = try server.storeState()
            #expect(try server.send(expired).status == 400)
            #expect(try server.storeState() == before)
            #expect(
                server.logLines.last?.contains("400 signature:") == true && server.logLines.last?.contains("expired") == true,
                "\(server.logLines)")
            #expect(try server.send(expired, to: "/udid/receive-lenient").status == 301)
            #expect(
                try server.storedDevices().map { $0["UDID"] ?? "" } == [String(repeating: "ab", count: 20), "00008030-0001A2B3C4D5E6F7"])
        }
    }

    @Test func twentyDevicesEnrollingAtOnceAreAllStored() throws {
        try withServer { server in
            let udids = (0..<20).map { String(format: "0000%04X-%016X", 0x8120, 0xA000 + $0) }
            var config = ""
            for (index, udid) in udids.enumerated() {
                let file = try server.folder.write("concurrent-\(index).p7s", try server.post(udid: udid, name: "Phone \(index)"))
                if index > 0 { config += "next\n" }
                config += "url = \"\(server.base)/udid/receive\"\nheader = \"Content-Type: application/pkcs7-signature\"\n"
                config += "data-binary = \"@\(file)\"\noutput = \"/dev/null\"\ncacert = \"\(server.tls)/ca.pem\"\n"
                config += "write-out = \"%{http_code}\\\\n\"\n"
            }
            let configFile = try server.folder.write("curl.cfg", config)
            let started = Date()
            let result = try ProcessResult.run(
                try #require(ProcessResult.which("curl")),
                ["-sS", "--parallel", "--parallel-immediate", "--parallel-max", "20", "-K", configFile])
            let seconds = Date().timeIntervalSince(started)
            try #require(result.status == 0, "curl: \(result.stderrText)")
            #expect(result.stdoutText.split(separator: "\n") == Array(repeating: "301", count: 20), "\(result.stdoutText)")
            let stored = try server.storedDevices()
            #expect(stored.count == 20)
            #expect(Set(stored.map { $0["UDID"] ?? "" }) == Set(udids))
            #expect(server.logLines.filter { $0.contains(" 301 stored ") }.count == 20)
            #expect(try server.storeState().names == ["devices.plist"])
            print("20 concurrent enrollments: \(String(format: "%.2f", seconds)) s")
        }
    }

    /// One bad request: what it is, where it goes, and what it gets.
    struct BadPost {
        var what: String
        var path = "/udid/receive"
        var contentType = "application/pkcs7-signature"
        var method = "POST"
        var body: Data?
        var status = 400
        /// What the one log line says after the status; nil when the receiver never runs (nginx answers).
        var logged: String?
    }

    @Test func badPostsAreRefusedWithTheStoreUnchangedAndOneLogLineEach() throws {
        try withServer { server in
            #expect(try server.send(try server.post(udid: Self.udid)).status == 301)
            let device = try server.ca.device("bad-posts-device")
            func signed(_ content: Data, detached: Bool = false) throws -> Data {
                try server.ca.sign(content, by: device, detached: detached)
            }
            let reply = try TestDeviceCA.reply(udid: "00008120-00000000000000B1", challenge: try server.challenge())
            let good = try signed(reply)
            var tampered = [UInt8](good)
            let model = [UInt8]("iPhone15,2".utf8)
            let at = try #require((0...(tampered.count - model.count)).first { Array(tampered[$0..<($0 + model.count)]) == model })
            tampered[at + 6] ^= 0x01
            let cases: [BadPost] = [
                BadPost(what: "tampered", body: Data(tampered), logged: "400 signature:"),
                BadPost(what: "unsigned", body: reply, logged: "400 signature:"),
                BadPost(what: "unsigned as text/xml", contentType: "text/xml", body: reply, logged: "400 content type \"text/xml\""),
                BadPost(what: "detached", body: try signed(reply, detached: true), logged: "400 signature:"),
                BadPost(
                    what: "wrong CA", body: try server.post(udid: "00008120-00000000000000B2", from: server.otherCA),
                    logged: "400 signature:"),
                BadPost(
                    what: "expired device", body: try server.post(udid: "00008120-00000000000000B3", kind: .expired),
                    logged: "400 signature:"),
                BadPost(
                    what: "forged challenge",
                    body: try signed(TestDeviceCA.reply(udid: "00008120-00000000000000B4", challenge: try server.challenge(forged: true))),
                    logged: "400 challenge:"),
                BadPost(
                    what: "expired challenge",
                    body: try signed(TestDeviceCA.reply(udid: "00008120-00000000000000B5", challenge: try server.challenge(expired: true))),
                    logged: "400 challenge:"),
                BadPost(
                    what: "malformed UDID", body: try signed(TestDeviceCA.reply(udid: "not-a-udid", challenge: try server.challenge())),
                    logged: "400 udid"),
                BadPost(what: "not a dict", body: try signed(TestDeviceCA.plist([Self.udid])), logged: "400 content:"),
                BadPost(what: "over --max-body", path: "/udid/receive-small", body: good + Data(count: 20_000), logged: "400 length:"),
                BadPost(what: "over nginx's limit", body: good + Data(count: 100_000), status: 413),
                BadPost(what: "GET", method: "GET", body: nil, status: 405, logged: "405 method GET")
            ]
            for bad in cases {
                let before = try server.storeState(), lines = server.logLines.count
                let answer = try server.send(bad.body, to: bad.path, contentType: bad.contentType, method: bad.method)
                #expect(answer.status == bad.status, "\(bad.what)")
                #expect(answer.location == "", "\(bad.what)")
                #expect(try server.storeState() == before, "\(bad.what): the store or its folder changed")
                let new = Array(server.logLines.dropFirst(lines))
                if let logged = bad.logged {
                    #expect(new.count == 1 && new[0].hasPrefix("adhocbuild devices receive: " + logged), "\(bad.what): \(new)")
                } else {
                    #expect(new.isEmpty, "\(bad.what): \(new)")
                }
            }
            #expect(try server.storedDevices().map { $0["UDID"] ?? "" } == [Self.udid])
        }
    }

    @Test func aReplayedPostIsRefusedUnlessItOnlyRepeatsWhatTheStoreHolds() throws {
        try withServer { server in
            let first = try server.post(udid: Self.udid, name: "Ana's iPhone")
            #expect(try server.send(first).status == 301)
            // The same reply again: the device is listed with the same data, so it is thanked, and nothing is written.
            var before = try server.storeState()
            let again = try server.send(first)
            #expect(again.status == 301 && again.location.hasPrefix(server.thanks + "?"))
            #expect(try server.storeState() == before)
            #expect(
                server.logLines.last?.hasPrefix("adhocbuild devices receive: 301 already registered \(Self.udid)") == true,
                "\(server.logLines)")
            // The device enrolls again under a new name; the old reply now disagrees with the store: refused.
            #expect(try server.send(try server.post(udid: Self.udid, name: "Ana's new iPhone")).status == 301)
            before = try server.storeState()
            let lines = server.logLines.count
            #expect(try server.send(first).status == 400)
            #expect(try server.storeState() == before)
            let new = Array(server.logLines.dropFirst(lines))
            #expect(new.count == 1 && new[0].hasPrefix("adhocbuild devices receive: 400 replayed:"), "\(new)")
            #expect(try server.storedDevices() == [["UDID": Self.udid, "Name": "Ana's new iPhone", "Model": "iPhone15,2"]])
        }
    }
}
