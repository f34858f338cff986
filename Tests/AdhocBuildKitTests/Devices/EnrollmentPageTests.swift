import AdhocBuildKit
import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

/// The enrollment profile as independent tools read it: Python's plistlib (unsigned), `openssl cms -verify`
/// then plistlib (signed, with a test CA), the signed content equal to the unsigned plist byte for byte,
/// the chain inside the CMS, a changed byte refused by openssl, and a challenge the receiver accepts;
/// the folder gets exactly the page's files, and a failure leaves nothing.
@Suite struct EnrollmentPageTests {
    static let pageURL = "https://builds.example.com/udid/"
    static let files = ["enroll.js", "enroll.mobileconfig", "index.html", "style.css", "thanks.html", "thanks.js"]

    /// plistlib's reading of `path`, as JSON.
    static func plistlib(_ path: String) throws -> [String: Any] {
        let python = try #require(ProcessResult.which("python3"))
        let script = "import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], 'rb'))))"
        let result = try ProcessResult.run(python, ["-c", script, path])
        try #require(result.status == 0, "plistlib: \(result.stderrText)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    static func openssl(_ arguments: [String]) throws -> ProcessResult {
        try ProcessResult.run(try #require(ProcessResult.which("openssl")), arguments)
    }

    /// Checks the Profile Service payload plistlib read, and that its challenge is accepted with `key`.
    static func expectProfile(_ plist: [String: Any], key: EnrollmentKey) throws {
        #expect(plist["PayloadType"] as? String == "Profile Service")
        #expect(plist["PayloadVersion"] as? Int == 1)
        #expect(plist["PayloadIdentifier"] as? String == "com.example.builds.udid")
        let uuid = try #require(plist["PayloadUUID"] as? String)
        #expect(UUID(uuidString: uuid) != nil && uuid == uuid.uppercased())
        #expect(plist["PayloadDisplayName"] as? String == "Register this device with Shout & Co")
        #expect(plist["PayloadOrganization"] as? String == "Shout & Co")
        #expect((plist["PayloadDescription"] as? String)?.contains("builds.example.com") == true)
        let content = try #require(plist["PayloadContent"] as? [String: Any])
        #expect(content["URL"] as? String == "https://builds.example.com/udid/receive")
        #expect(content["DeviceAttributes"] as? [String] == ["UDID", "PRODUCT", "VERSION", "SERIAL", "DEVICE_NAME"])
        let challenge = try #require(content["Challenge"] as? String)
        let expires = try EnrollmentChallenge.check(challenge, key: key, identifier: "com.example.builds.udid", now: Date())
        #expect(abs(expires.timeIntervalSinceNow - 90 * 86_400) < 120)
    }

    @Test func anUnsignedProfileIsAPlistThatPlistlibReads() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let key = try EnrollmentKey.random()
            let page = EnrollmentPage(pageURL: Self.pageURL, organization: "Shout & Co", key: key, identity: nil)
            let site = folder.path("site")
            let result = try page.write(to: site)
            #expect(try FileManager.default.contentsOfDirectory(atPath: site).sorted() == Self.files)
            #expect(result.files.count == Self.files.count)
            let mobileconfig = site + "/enroll.mobileconfig"
            #expect(try Data(contentsOf: URL(fileURLWithPath: mobileconfig)) == Data(try result.profile.xml()))
            try Self.expectProfile(try Self.plistlib(mobileconfig), key: key)
            let index = try String(contentsOfFile: site + "/index.html", encoding: .utf8)
            #expect(index.contains("id=\"unsigned-profile\""))
            #expect(!index.contains("<script>") && !index.contains("style=\""))
        }
    }

    @Test func aSignedProfileVerifiesWithOpenSSLAndCarriesTheUnsignedPlistAndTheChain() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let identities = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: identities.leafWithCA, password: .file(identities.passwordFile))
            let key = try EnrollmentKey.random()
            let site = folder.path("site")
            let result = try EnrollmentPage(pageURL: Self.pageURL, organization: "Shout & Co", key: key, identity: identity).write(
                to: site)
            let mobileconfig = site + "/enroll.mobileconfig"
            let content = folder.path("content.plist")
            let verify = try Self.openssl([
                "cms", "-verify", "-inform", "DER", "-in", mobileconfig, "-CAfile", identities.caPEM, "-purpose", "any", "-out", content
            ])
            #expect(verify.status == 0, "openssl cms -verify: \(verify.stderrText)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: content)) == Data(try result.profile.xml()))
            try Self.expectProfile(try Self.plistlib(content), key: key)
            #expect(!(try String(contentsOfFile: site + "/index.html", encoding: .utf8)).contains("unsigned-profile"))

            let printed = try Self.openssl(["cms", "-cmsout", "-print", "-inform", "DER", "-in", mobileconfig])
            #expect(printed.status == 0)
            #expect(printed.stdoutText.contains("CN=Test Leaf"), "the signer's certificate is not in the CMS")
            #expect(printed.stdoutText.contains("subject: CN=Test CA"), "the chain is not in the CMS")
            #expect(printed.stdoutText.contains("eContentType: pkcs7-data"))
            #expect(printed.stdoutText.contains("eContent: \n        0000 - 3c 3f 78 6d 6c"), "the content (<?xml) is not embedded")

            // Our own verifier agrees, with the CA as the anchor.
            let report = try SignedDataVerifier.verify(
                der: [UInt8](try Data(contentsOf: URL(fileURLWithPath: mobileconfig))),
                anchors: try TrustAnchors(pemFile: identities.caPEM), ignoreExpiry: false, now: nil)
            #expect(report.content == (try result.profile.xml()))

            // One changed byte in the embedded plist, and openssl refuses it.
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mobileconfig)))
            let marker = Array("Profile Service".utf8)
            let at = try #require(bytes.indices.first { bytes[$0..<min(bytes.count, $0 + marker.count)].elementsEqual(marker) })
            bytes[at] = UInt8(ascii: "p")
            let tampered = try folder.write("tampered.mobileconfig", Data(bytes))
            let refused = try Self.openssl([
                "cms", "-verify", "-inform", "DER", "-in", tampered, "-CAfile", identities.caPEM, "-purpose", "any", "-out",
                folder.path("t.plist")
            ])
            #expect(refused.status != 0)
            #expect(
                refused.stderrText.contains("content verify error") || refused.stderrText.contains("digest failure"),
                "\(refused.stderrText)")
        }
    }

    @Test func anExistingFolderKeepsItsOtherFilesAndGetsThePageFiles() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            _ = try folder.write("site-existing.txt", "x")
            let site = folder.path("existing")
            try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: false)
            _ = try folder.write("existing/other.txt", "kept")
            _ = try EnrollmentPage(pageURL: Self.pageURL, organization: nil, key: try EnrollmentKey.random(), identity: nil).write(to: site)
            #expect(try FileManager.default.contentsOfDirectory(atPath: site).sorted() == (Self.files + ["other.txt"]).sorted())
        }
    }

    @Test func aFailureLeavesNothingBehind() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            _ = try folder.write("file", "not a folder")
            let before = folder.snapshot()
            let page = EnrollmentPage(pageURL: Self.pageURL, organization: nil, key: try EnrollmentKey.random(), identity: nil)
            let error = try #require(expectDiagnostic(FileProblem.self) { try page.write(to: folder.path("file")) })
            #expect(error.file == folder.path("file"))
            // A folder named like one of the files stops the write before anything is renamed into place.
            let site = folder.path("site")
            try FileManager.default.createDirectory(atPath: site + "/thanks.html", withIntermediateDirectories: true)
            #expect(throws: Diagnostic.self) { try page.write(to: site) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: site) == ["thanks.html"])
            #expect(folder.snapshot() == before)
        }
    }

    @Test func theIdentifierIsTheHostReversed() {
        #expect(EnrollmentProfile.identifier(forPageURL: "https://builds.example.com/udid/") == "com.example.builds.udid")
        #expect(EnrollmentProfile.identifier(forPageURL: "https://user@Builds.Example.com:8443/x/") == "com.example.builds.udid")
        #expect(EnrollmentProfile.identifier(forPageURL: "https://127.0.0.1:8443/udid/") == "1.0.0.127.udid")
    }
}
