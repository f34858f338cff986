import CodeSign
import Foundation
import TestSupport
import Testing

@testable import AdhocBuildKit

/// The receiver without CGI: each check of a device's POST, its status and its one log line, and the store
/// written only when a device is accepted.
@Suite struct EnrollmentReceiverTests {
    static let identifier = "com.example.udid"
    static let udid = "00008120-001A2B3C4D5E6F70"

    /// A test device CA, a key, a receiver whose store is in the folder, and a device to sign with.
    struct Setup {
        var folder: TemporaryFolder
        var ca: TestDeviceCA
        var key: EnrollmentKey
        var receiver: EnrollmentReceiver
        var device: TestDeviceCA.Device
        /// A second after the certificates were made (they are valid from the second they were made).
        var now: Date
        var store: String { receiver.settings.store }

        init(_ folder: TemporaryFolder, maxBody: Int = EnrollmentReceiver.defaultMaxBody, store: String? = nil) throws {
            self.folder = folder
            ca = try TestDeviceCA.make(in: folder.path("ca"))
            key = try #require(EnrollmentKey(bytes: Array(repeating: 42, count: 32)))
            receiver = EnrollmentReceiver(
                settings: .init(
                    store: store ?? folder.path("devices.plist"), anchors: try TrustAnchors(pemFile: ca.rootPEM), key: key,
                    identifier: EnrollmentReceiverTests.identifier, thanks: "https://example.com/udid/thanks.html", maxBody: maxBody))
            device = try ca.device("device")
            now = Date().addingTimeInterval(1)
        }

        func challenge(key: EnrollmentKey? = nil, validFor: TimeInterval = 3 * 3600) throws -> String {
            try EnrollmentChallenge.make(
                key: key ?? self.key, identifier: EnrollmentReceiverTests.identifier, issued: now.addingTimeInterval(-7200),
                validFor: validFor)
        }

        func signedReply(udid: String = EnrollmentReceiverTests.udid, name: String = "Ana's iPhone", challenge: String? = nil) throws
            -> [UInt8]
        {
            [UInt8](try ca.sign(try TestDeviceCA.reply(udid: udid, challenge: try challenge ?? self.challenge(), name: name), by: device))
        }

        func respond(_ body: [UInt8], method: String? = "POST", type: String? = EnrollmentReceiver.contentType, length: String? = nil)
            -> EnrollmentResponse
        {
            receiver.respond(
                to: .init(method: method, contentType: type, contentLength: length ?? String(body.count), body: body), now: now)
        }
    }

    func expectRefused(
        _ response: EnrollmentResponse, _ status: Int, _ logged: String, store: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.location == nil, sourceLocation: sourceLocation)
        #expect(
            response.logLine.hasPrefix("adhocbuild devices receive: \(status) \(logged)"), "\(response.logLine)",
            sourceLocation: sourceLocation)
        #expect(!response.logLine.contains("\n"), sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: store), "\(response.logLine)", sourceLocation: sourceLocation)
    }

    @Test func aSignedReplyIsStoredAndAnsweredWith301ToTheThankYouPage() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let setup = try Setup(folder)
            let response = setup.respond(try setup.signedReply(name: "Ana's iPhone"))
            #expect(response.status == 301)
            #expect(response.location == "https://example.com/udid/thanks.html?name=Ana%27s%20iPhone&model=iPhone15%2C2&udid=\(Self.udid)")
            #expect(
                response.logLine
                    == "adhocbuild devices receive: 301 stored \(Self.udid) \"Ana's iPhone\" iPhone15,2 signer \"Test iPhone Device CA\"")
            let cgi = String(decoding: response.cgi, as: UTF8.self)
            #expect(cgi.hasPrefix("Status: 301 Moved Permanently\r\nLocation: \(response.location ?? "")\r\n"))
            #expect(FileManager.default.fileExists(atPath: setup.store))
        }
    }

    @Test func aRequestThatIsNotAPostOfTheRightTypeAndLengthIsRefusedBeforeItIsRead() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let setup = try Setup(folder, maxBody: 4096)
            let body = try setup.signedReply()
            let store = setup.store
            expectRefused(setup.respond(body, method: "GET"), 405, "method GET: only POST", store: store)
            #expect(String(decoding: setup.respond([], method: "GET").cgi, as: UTF8.self).contains("\r\nAllow: POST\r\n"))
            expectRefused(setup.respond(body, method: nil), 405, "method (none)", store: store)
            expectRefused(setup.respond(body, type: "text/xml"), 400, "content type \"text/xml\"", store: store)
            expectRefused(setup.respond(body, type: nil), 400, "content type (none)", store: store)
            expectRefused(setup.respond(body, length: "12a"), 400, "length: no valid CONTENT_LENGTH (\"12a\")", store: store)
            expectRefused(setup.respond(body, length: ""), 400, "length: no valid CONTENT_LENGTH", store: store)
            expectRefused(
                setup.respond(body + Array(repeating: 0, count: 5000)), 400, "length: \(body.count + 5000) bytes, more than the 4096",
                store: store)
            expectRefused(
                setup.respond(body, length: String(body.count + 1)), 400, "length: the body is \(body.count) bytes, not the", store: store)
            // Parameters after the media type are ignored, and its case.
            #expect(setup.respond(body, type: "Application/PKCS7-Signature; charset=binary").status == 301)
        }
    }

    @Test func aBodyThatIsNotASignedReplyOfATrustedDeviceIsRefused() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let setup = try Setup(folder)
            let reply = try TestDeviceCA.reply(udid: Self.udid, challenge: try setup.challenge())
            let store = setup.store
            expectRefused(setup.respond([UInt8](reply)), 400, "signature: not a DER CMS SignedData", store: store)
            var tampered = try setup.signedReply()
            let model = [UInt8]("iPhone15,2".utf8)
            let at = try #require((0...(tampered.count - model.count)).first { Array(tampered[$0..<($0 + model.count)]) == model })
            tampered[at] ^= 0x20
            expectRefused(setup.respond(tampered), 400, "signature: signature does not verify", store: store)
            expectRefused(
                setup.respond([UInt8](try setup.ca.sign(reply, by: setup.device, detached: true))), 400,
                "signature: the SignedData is detached", store: store)
            let other = try TestDeviceCA.make(in: folder.path("other"), name: "Other")
            let stranger = [UInt8](try other.sign(reply, by: try other.device("stranger")))
            expectRefused(setup.respond(stranger), 400, "signature: device certificate not issued by a trusted anchor", store: store)
            let expired = [UInt8](try setup.ca.sign(reply, by: try setup.ca.device("old", kind: .expired)))
            expectRefused(setup.respond(expired), 400, "signature: certificate \"old\" expired", store: store)
            var lenient = setup
            lenient.receiver.settings.ignoreExpiry = true
            #expect(lenient.respond(expired).status == 301)
        }
    }

    @Test func signedContentThatIsNotADevicesReplyIsRefused() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let setup = try Setup(folder)
            let store = setup.store
            func signed(_ value: Any) throws -> [UInt8] { [UInt8](try setup.ca.sign(try TestDeviceCA.plist(value), by: setup.device)) }
            func signedText(_ text: String) throws -> [UInt8] { [UInt8](try setup.ca.sign(Data(text.utf8), by: setup.device)) }
            let challenge = try setup.challenge()
            expectRefused(setup.respond(try signed([Self.udid])), 400, "content: the plist is an array, not a dict", store: store)
            expectRefused(setup.respond(try signedText("UDID=1")), 400, "content: not an XML plist", store: store)
            expectRefused(
                setup.respond(try signed(["UDID": Self.udid, "CHALLENGE": challenge, "SERIAL": 7])), 400, "content: SERIAL is an integer",
                store: store)
            expectRefused(
                setup.respond(try signed(["UDID": Self.udid, "CHALLENGE": challenge, "DEVICE_NAME": String(repeating: "a", count: 257)])),
                400,
                "content: DEVICE_NAME is 257 bytes", store: store)
            expectRefused(setup.respond(try signed(["CHALLENGE": challenge])), 400, "content: no UDID", store: store)
            expectRefused(setup.respond(try signed(["UDID": Self.udid])), 400, "content: no CHALLENGE", store: store)
            for bad in ["0000812-001A2B3C4D5E6F70", "00008120_001A2B3C4D5E6F70", String(repeating: "g", count: 40), ""] {
                expectRefused(setup.respond(try setup.signedReply(udid: bad)), 400, "udid: '\(bad)' is not a device UDID", store: store)
            }
            expectRefused(setup.respond(try setup.signedReply(name: "Ana\niPhone")), 400, "content: DEVICE_NAME: ", store: store)
        }
    }

    @Test func aChallengeNotOursOrExpiredIsRefused() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let setup = try Setup(folder)
            let store = setup.store
            let otherKey = try #require(EnrollmentKey(bytes: Array(repeating: 1, count: 32)))
            expectRefused(
                setup.respond(try setup.signedReply(challenge: try setup.challenge(key: otherKey))), 400,
                "challenge: the enrollment challenge's MAC does not match", store: store)
            expectRefused(
                setup.respond(try setup.signedReply(challenge: try setup.challenge(validFor: 60))), 400,
                "challenge: the enrollment challenge expired", store: store)
            expectRefused(
                setup.respond(try setup.signedReply(challenge: "v1.1.2.3")), 400, "challenge: the enrollment challenge is not of the form",
                store: store)
        }
    }

    @Test func aReplayIsAnsweredWithoutWritingAndRefusedOnceTheDeviceChanged() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let setup = try Setup(folder)
            let first = try setup.signedReply(name: "Ana's iPhone")
            #expect(setup.respond(first).status == 301)
            let stored = try Data(contentsOf: URL(fileURLWithPath: setup.store))
            let again = setup.respond(first)
            #expect(again.status == 301 && again.logLine.hasPrefix("adhocbuild devices receive: 301 already registered \(Self.udid)"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: setup.store)) == stored)
            #expect(setup.respond(try setup.signedReply(name: "Ana's new iPhone")).status == 301)
            let renamed = try Data(contentsOf: URL(fileURLWithPath: setup.store))
            let replayed = setup.respond(first)
            #expect(replayed.status == 400)
            #expect(replayed.logLine == "adhocbuild devices receive: 400 replayed: this signed reply was received before (\(Self.udid))")
            #expect(try Data(contentsOf: URL(fileURLWithPath: setup.store)) == renamed)
        }
    }

    @Test func aStoreThatCannotBeWrittenIs500WithTheReasonLogged() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let setup = try Setup(folder, store: folder.path("missing-folder/devices.plist"))
            let response = setup.respond(try setup.signedReply())
            #expect(response.status == 500)
            #expect(
                response.logLine.hasPrefix("adhocbuild devices receive: 500 store: ") && response.logLine.contains("missing-folder"),
                "\(response.logLine)")
            #expect(String(decoding: response.cgi, as: UTF8.self).hasPrefix("Status: 500 Internal Server Error\r\n"))
        }
    }
}
