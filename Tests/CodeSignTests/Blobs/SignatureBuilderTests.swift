import CodeSign
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// The CodeDirectory, designated requirement and entitlements builders on inputs made here.
struct SignatureBuilderTests {
    static let parameters = CodeDirectoryParameters(
        identifier: "com.example.tiny", teamID: "ABCDE12345", version: CodeDirectory.Version.execSegment, hashType: .sha256,
        codeLimit: 10_000, execSegmentBase: 0, execSegmentLimit: 8192, execSegmentFlags: CodeDirectory.ExecSegmentFlag.mainBinary)

    @Test func hashesEveryPageUpToTheLimitAndLaysOutTheSpecialSlots() throws {
        let code = (0..<12_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let info = Array("<plist/>".utf8), entitlements = EntitlementsBlob(format: .xml, payload: Array("<plist/>".utf8)).bytes()
        let directory = try CodeDirectoryBuilder.build(
            code: code, specialSlots: SpecialSlotContents(infoPlist: info, entitlements: entitlements), parameters: Self.parameters)
        #expect(
            directory.codeSlots == [Digest.sha256(code[0..<4096]), Digest.sha256(code[4096..<8192]), Digest.sha256(code[8192..<10_000])])
        #expect(directory.specialSlots.count == 5)
        #expect(directory.specialSlot(1) == Digest.sha256(info))
        #expect(directory.specialSlot(2) == [UInt8](repeating: 0, count: 32))
        #expect(directory.specialSlot(5) == Digest.sha256(entitlements))
        #expect(directory.execSegmentLimit == 8192 && directory.execSegmentFlags == 1)
        let bytes = directory.bytes()
        #expect(try CodeDirectory(bytes: bytes) == directory)
        #expect(CodeDirectoryParameters(of: try CodeDirectory(bytes: bytes)) == Self.parameters)
        // The header says where the hashes start: after the header, identifier, team id and 5 special slots.
        let hashOffset = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(hashOffset == 88 + "com.example.tiny".utf8.count + 1 + "ABCDE12345".utf8.count + 1 + 5 * 32)
    }

    @Test func aLimitPastTheCodeOrTooBigForTheVersionIsAnError() throws {
        expectDiagnostic(CodeSignProblem.self) {
            try CodeDirectoryBuilder.build(code: [0, 1, 2], specialSlots: SpecialSlotContents(), parameters: Self.parameters)
        }
        var old = Self.parameters
        old.version = CodeDirectory.Version.teamID
        old.codeLimit = UInt64(UInt32.max) + 1
        expectDiagnostic(CodeSignProblem.self) {
            try CodeDirectoryBuilder.build(code: [], specialSlots: SpecialSlotContents(), parameters: old)
        }
    }

    @Test func aCertificateAppleDidNotIssueIsPinnedByItsRootsSHA1() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed to make a test certificate")
        let folder = try TemporaryFolder()
        let made = try ProcessResult.run(
            openssl,
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder.path("key.pem"), "-out", folder.path("cert.der"),
                "-outform", "DER", "-days", "2", "-subj", "/CN=Tiny Signer/OU=ABCDE12345"
            ])
        #expect(made.status == 0, "\(made.stderrText)")
        let der = Array(try Data(contentsOf: URL(fileURLWithPath: folder.path("cert.der"))))
        let fingerprint = try ProcessResult.run(
            openssl, ["x509", "-inform", "DER", "-in", folder.path("cert.der"), "-noout", "-fingerprint", "-sha1"])
        let sha1 = fingerprint.stdoutText.split(separator: "=").last.map { $0.replacingOccurrences(of: ":", with: "").lowercased() } ?? ""
        let set = try DesignatedRequirement.requirementSet(identifier: "com.example.tiny", chain: [try CertificateInfo(der: der)])
        #expect(
            set.description
                == "designated => identifier \"com.example.tiny\" and certificate root = H\"\(sha1.trimmingCharacters(in: .whitespacesAndNewlines))\"\n"
        )
        #expect(try RequirementSet(bytes: set.bytes()) == set)
        expectCodeSign(.identityInvalid) { try DesignatedRequirement.requirementSet(identifier: "x", chain: []) }
    }

    @Test func entitlementsBlobsAreWrittenAsXcodeWritesThem() throws {
        var dictionary = PlistDictionary()
        dictionary.append("get-task-allow", .bool(true))
        dictionary.append("application-identifier", .string("ABCDE12345.com.example.tiny"))
        dictionary.append("keychain-access-groups", .array([.string("ABCDE12345.*")]))
        let xml = try EntitlementsBlob.xml(.dictionary(dictionary))
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>application-identifier</key>
            \t<string>ABCDE12345.com.example.tiny</string>
            \t<key>get-task-allow</key>
            \t<true/>
            \t<key>keychain-access-groups</key>
            \t<array>
            \t\t<string>ABCDE12345.*</string>
            \t</array>
            </dict>
            </plist>

            """
        #expect(String(decoding: xml.payload, as: UTF8.self) == text)
        #expect(
            Array(xml.bytes().prefix(8)) == [0xfa, 0xde, 0x71, 0x71, 0, 0, UInt8(xml.bytes().count >> 8), UInt8(xml.bytes().count & 0xff)])
        let der = try EntitlementsBlob.der(.dictionary(dictionary))
        #expect(try EntitlementsBlob(bytes: der.bytes()).entitlements() == xml.entitlements())
        // Xcode's current layout orders the dictionary's entries by key; the bare SET of Xcode 12.5 by
        // their encoding, so there the shorter entry comes first.
        #expect(try der.entitlements().dictionaryValue?.keys.first == "application-identifier")
        #expect(der.payload.first == 0x70)
        let legacy = try EntitlementsBlob.der(.dictionary(dictionary), layout: .bareSet)
        #expect(legacy.payload.first == 0x31)
        #expect(try legacy.entitlements().dictionaryValue?.keys.first == "get-task-allow")
        #expect(try legacy.entitlements() == der.entitlements())
    }
}
