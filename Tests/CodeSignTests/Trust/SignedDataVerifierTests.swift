import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

/// A device's reply, as iOS sends it to an enrollment receiver, verified against a throwaway PKI made with
/// the `openssl` command: a partial chain to the intermediate is trusted, any certificate purpose is
/// accepted, expiry is checked unless told not to, and anything else (a changed byte, a detached or
/// unsigned message, an unknown issuer) is refused with one line of its own kind.
@Suite struct SignedDataVerifierTests {
    static let reply = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>UDID</key><string>00008120-001A2B3C4D5E6F70</string>
        <key>PRODUCT</key><string>iPhone15,2</string></dict></plist>

        """.utf8)

    /// Runs `body` with the device CA and its intermediate alone as the anchor.
    private func withPKI(_ body: (TestDeviceCA, TrustAnchors) throws -> Void) throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let ca = try TestDeviceCA.make(in: folder.path("ca"))
            try body(ca, try TrustAnchors(pemFile: ca.intermediatePEM))
        }
    }

    @Test func aReplySignedByADeviceVerifiesWithTheIntermediateAsTheOnlyAnchor() throws {
        try withPKI { pki, anchors in
            let der = [UInt8](try pki.sign(Self.reply, by: try pki.device("dev-plain", kind: .plain)))
            let report = try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: false, now: nil)
            #expect(report.content == [UInt8](Self.reply))
            #expect(report.signerIssuer == "Test iPhone Device CA")
            #expect(report.signer.organizationalUnit == "iPhone")
            #expect(report.chain.map(\.displayName) == [report.signer.displayName, "Test iPhone Device CA"])
            #expect(report.signatureDigest.count == 32)
            // The same message gives the same digest; a new signature of the same content, the same too (RSA PKCS#1 v1.5
            // is deterministic, but the signingTime attribute differs from second to second, so only compare the first).
            let again = try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: false, now: nil)
            #expect(again.signatureDigest == report.signatureDigest)
        }
    }

    @Test func theRootAsAnchorAlsoVerifiesThroughTheCarriedIntermediate() throws {
        try withPKI { pki, _ in
            let der = [UInt8](try pki.sign(Self.reply, by: try pki.device("dev-plain", kind: .plain)))
            let report = try SignedDataVerifier.verify(
                der: der, anchors: try TrustAnchors(pemFile: pki.rootPEM), ignoreExpiry: false, now: nil)
            #expect(report.chain.last?.displayName == "Test Root CA")
        }
    }

    @Test func aDeviceCertificateWithOnlyClientAuthIsAcceptedAsAnyPurpose() throws {
        try withPKI { pki, anchors in
            let der = [UInt8](try pki.sign(Self.reply, by: try pki.device("dev-clientAuth", kind: .clientAuth)))
            let report = try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: false, now: nil)
            #expect(report.content == [UInt8](Self.reply))
        }
    }

    @Test func anExpiredDeviceIsRefusedUnlessExpiryIsIgnored() throws {
        try withPKI { pki, anchors in
            let der = [UInt8](try pki.sign(Self.reply, by: try pki.device("dev-expired", kind: .expired)))
            let error = try requireDiagnostic(CodeSignProblem.self) {
                try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: false, now: nil)
            }
            #expect(error.code == .codeSign(.expired))
            #expect(error.message.hasSuffix("expired on 2021-01-01T00:00:00Z"), "\(error)")
            let report = try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: true, now: nil)
            #expect(report.content == [UInt8](Self.reply))
            // The time given is the one checked: a current device is expired in 2100, and not yet valid in 2000.
            let plain = [UInt8](try pki.sign(Self.reply, by: try pki.device("dev-plain", kind: .plain)))
            for year in [4_102_444_800, 946_684_800] {
                let error = try requireDiagnostic(CodeSignProblem.self) {
                    try SignedDataVerifier.verify(
                        der: plain, anchors: anchors, ignoreExpiry: false, now: Date(timeIntervalSince1970: TimeInterval(year)))
                }
                #expect(error.code == .codeSign(.expired), "\(error)")
            }
        }
    }

    @Test func aDeviceOfAnotherRootIsNotTrusted() throws {
        try withPKI { pki, anchors in
            let other = try TestDeviceCA.make(in: pki.folder + "-other", name: "Other")
            let der = [UInt8](try other.sign(Self.reply, by: try other.device("foreign")))
            let error = try requireDiagnostic(CodeSignProblem.self) {
                try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: true, now: nil)
            }
            #expect(error.code == .codeSign(.signerUntrusted))
            #expect(error.message.hasPrefix("device certificate not issued by a trusted anchor: "), "\(error)")
        }
    }

    @Test func aChangedByteInTheContentIsRefused() throws {
        try withPKI { pki, anchors in
            var der = [UInt8](try pki.sign(Self.reply, by: try pki.device("dev-plain", kind: .plain)))
            let model = Array("iPhone15,2".utf8)
            let at = try #require(der.indices.first { der[$0..<min(der.count, $0 + model.count)].elementsEqual(model) })
            der[at + 6] = UInt8(ascii: "6")
            let error = try requireDiagnostic(CodeSignProblem.self) {
                try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: false, now: nil)
            }
            #expect(error.code == .codeSign(.signatureInvalid))
            #expect(error.message.hasPrefix("signature does not verify: "), "\(error)")
        }
    }

    @Test func aDetachedSignatureIsRefused() throws {
        try withPKI { pki, anchors in
            let der = [UInt8](try pki.sign(Self.reply, by: try pki.device("dev"), detached: true))
            let error = try requireDiagnostic(CodeSignProblem.self) {
                try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: false, now: nil)
            }
            #expect(error.code == .codeSign(.malformed))
            #expect(error.message == "the SignedData is detached: it does not carry the content it signs")
        }
    }

    @Test func anUnsignedPlistIsNotASignedData() throws {
        try withPKI { _, anchors in
            let error = try requireDiagnostic(CodeSignProblem.self) {
                try SignedDataVerifier.verify(der: [UInt8](Self.reply), anchors: anchors, ignoreExpiry: false, now: nil)
            }
            #expect(error.code == .codeSign(.malformed))
            #expect(error.message.hasPrefix("not a CMS SignedData"), "\(error)")
        }
    }

    @Test func aMessageOverTheSizeLimitIsRefusedBeforeItIsParsed() throws {
        try withPKI { _, anchors in
            let der = [UInt8](repeating: 0x30, count: SignedDataVerifier.maximumBytes + 1)
            let error = try requireDiagnostic(CodeSignProblem.self) {
                try SignedDataVerifier.verify(der: der, anchors: anchors, ignoreExpiry: false, now: nil)
            }
            #expect(error.message.contains("more than the \(SignedDataVerifier.maximumBytes) accepted"))
        }
    }

    @Test func trustAnchorsNameTheFileThatHoldsNoCertificate() throws {
        try withTemporaryFolder { (folder: TemporaryFolder) throws -> Void in
            let empty = try folder.write("empty.pem", "not a certificate\n")
            let error = try requireDiagnostic(CodeSignProblem.self) { try TrustAnchors(pemFile: empty) }
            #expect(error.file == empty)
            #expect(error.message.contains("holds no PEM certificate"))
            let missing = folder.path("missing.pem")
            let unreadable = try requireDiagnostic(CodeSignProblem.self) { try TrustAnchors(pemFile: missing) }
            #expect(unreadable.file == missing)
        }
    }
}
