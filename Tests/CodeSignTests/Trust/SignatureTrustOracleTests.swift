import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// The CMS attributes and certificates read through libcrypto's API, cross-checked with the
/// `openssl` command line: `asn1parse` for the signed attributes, `pkcs7 -print_certs` and
/// `x509 -fingerprint -sha256` for the pinned Apple root, `cms -verify` for the signature.
@Suite(Fixtures.enabled) struct SignatureTrustOracleTests {
    /// The content bytes of the primitive values `openssl asn1parse` shows after each signed attribute's
    /// OID, in order, cut from `der` at the offset, header length and length asn1parse prints.
    static func attributeValues(_ text: String, _ der: [UInt8]) -> [String: [[UInt8]]] {
        var out: [String: [[UInt8]]] = [:]
        var current: String?
        let attributes = ["contentType", "signingTime", "messageDigest", "1.2.840.113635.100.9.1", "1.2.840.113635.100.9.2"]
        for line in text.split(separator: "\n") {
            guard let colon = line.lastIndex(of: ":") else { continue }
            let value = String(line[line.index(after: colon)...])
            if line.contains("OBJECT"), attributes.contains(value) {
                current = value
                out[value] = []
            } else if line.contains("OBJECT"), !["sha1", "sha256", "sha384"].contains(value) {
                current = nil
            } else if let key = current, line.contains("prim:"), !line.contains("OBJECT") {
                // " 4159:d=9  hl=2 l=  32 prim: OCTET STRING …"
                func number(after key: String) -> Int? {
                    guard let range = line.range(of: key) else { return nil }
                    return Int(line[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber })
                }
                guard let offset = Int(line.drop { $0 == " " }.prefix { $0.isNumber }), let header = number(after: "hl="),
                    let length = number(after: " l="), offset + header + length <= der.count
                else { continue }
                out[key, default: []].append(Array(der[(offset + header)..<(offset + header + length)]))
            }
        }
        return out
    }

    static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    @Test func opensslAsn1parseShowsTheSameSignedAttributes() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed for the oracle")
        var checked = 0
        try withTemporaryFolder { folder in
            for item in try TrustCase.all() {
                let cms = try #require(item.evaluate().cms)
                let der = try #require(item.signature.signature).cms
                let path = try folder.write("cms.der", Data(der))
                let parsed = try ProcessResult.run(openssl, ["asn1parse", "-inform", "DER", "-in", path])
                #expect(parsed.status == 0)
                let values = Self.attributeValues(parsed.stdoutText, der)
                // signingTime: 210509065943Z
                let time = String(decoding: try #require(values["signingTime"]?.first, "\(item)"), as: UTF8.self)
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateFormat = "yyMMddHHmmss'Z'"
                #expect(formatter.date(from: time) == cms.signingTime, "\(item)")
                #expect(values["messageDigest"]?.first == cms.messageDigest, "\(item)")
                checked += 1
                // Signers before Xcode 7.3 wrote no 100.9.1 plist (their signatures have one CodeDirectory).
                guard let plistBytes = values["1.2.840.113635.100.9.1"]?.first else {
                    #expect(cms.cdhashesPlist == nil && item.signature.codeDirectories.count == 1, "\(item)")
                    continue
                }
                let plist = try PropertyList(data: Data(plistBytes)).value
                let listed = plist.dictionaryValue?["cdhashes"]?.arrayValue?.map { value -> [UInt8] in
                    if case .data(let data) = value { return Array(data) }
                    return []
                }
                #expect(listed == cms.cdhashesPlist, "\(item)")
                #expect(listed == item.signature.codeDirectories.map { $0.cdhash() }, "\(item)")
                if let full = values["1.2.840.113635.100.9.2"] {
                    let digests = full
                    #expect(
                        digests.sorted { $0.lexicographicallyPrecedes($1) }
                            == (cms.cdhashes ?? []).map(\.digest).sorted { $0.lexicographicallyPrecedes($1) })
                    // One entry per CodeDirectory, each named by its own hash (SHA-1 beside SHA-256 in dual signatures).
                    let oids = item.signature.codeDirectories.map { $0.hashType == .sha1 ? "1.3.14.3.2.26" : "2.16.840.1.101.3.4.2.1" }
                    #expect((cms.cdhashes ?? []).map(\.algorithm).sorted() == oids.sorted(), "\(item)")
                } else {
                    #expect(cms.cdhashes == nil)
                }
            }
        }
        #expect(checked == 34)
    }

    @Test func thePinnedRootIsTheAppleRootCAOpenSSLPrintsFromTheFixtures() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed for the oracle")
        let item = try #require(try TrustCase.all().first { $0.ipa == "ipa-server_Test_dev-xcode12.ipa" })
        try withTemporaryFolder { folder in
            let path = try folder.write("cms.der", Data(try #require(item.signature.signature).cms))
            let certificates = try ProcessResult.run(openssl, ["pkcs7", "-inform", "DER", "-in", path, "-print_certs"]).stdoutText
            let blocks = certificates.components(separatedBy: "-----END CERTIFICATE-----").filter { $0.contains("BEGIN") }
            var fingerprints: [String: String] = [:]
            for (index, block) in blocks.enumerated() {
                let pem = try folder.write("c\(index).pem", block + "-----END CERTIFICATE-----\n")
                let printed = try ProcessResult.run(openssl, ["x509", "-in", pem, "-noout", "-subject", "-fingerprint", "-sha256"])
                    .stdoutText
                let lines = printed.split(separator: "\n")
                if let subject = lines.first, let fingerprint = lines.last?.split(separator: "=").last {
                    fingerprints[String(subject)] = fingerprint.replacingOccurrences(of: ":", with: "").lowercased()
                }
            }
            let root = fingerprints.first { $0.key.hasSuffix("CN = Apple Root CA") }?.value
            #expect(root == "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024")
            #expect(root.map { Self.bytes(hex: $0) } == CertificateChain.appleRootCASHA256)
        }
    }
}
