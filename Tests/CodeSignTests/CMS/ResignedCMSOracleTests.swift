import CodeSign
import Foundation
import TestSupport
import Testing

/// Issue 30's proof that a re-signed build carries what Xcode writes today: every slice of every
/// Mach-O of every re-signed fixture has a CMS that `openssl cms -verify` accepts over that slice's
/// CodeDirectory, and DER entitlements in the current `[APPLICATION 16]` layout that read back as
/// the XML entitlements.
@Suite(Fixtures.enabled) struct ResignedCMSOracleTests {
    @Test func everySliceOfEveryResignedFixtureVerifiesWithOpenSSLAndHasCurrentDEREntitlements() throws {
        let openssl = try #require(ProcessResult.which("openssl"), "openssl is needed for the CMS oracle")
        var slices = 0, derBlobs = 0
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            for ipa in ResignedFixture.names() {
                let fixture = try ResignedFixture(ipa, identity: identity, made: made, in: folder)
                for relative in try ResignedFixture.machOFiles(fixture.app) {
                    for slice in try MachOFile(contentsOf: fixture.app + "/" + relative).slices {
                        let place = "\(ipa) \(relative) \(slice.cpu)"
                        let signature = try #require(try slice.embeddedSignature(), "\(place)")
                        let cms = try #require(signature.signature, "\(place): no CMS")
                        let directory = try #require(signature.blob(SignatureSlot.codeDirectory), "\(place)")
                        let cmsPath = try folder.write("cms.der", Data(cms.cms))
                        let contentPath = try folder.write("cd.bin", Data(directory))
                        let arguments = [
                            "cms", "-verify", "-binary", "-noverify", "-inform", "DER", "-in", cmsPath, "-content", contentPath, "-out",
                            "/dev/null"
                        ]
                        let result = try ProcessResult.run(openssl, arguments)
                        #expect(result.status == 0, "\(place): \(result.stderrText)")
                        // Another slice's CodeDirectory (or a changed one) is refused.
                        var other = directory
                        other[other.count - 1] ^= 0x01
                        _ = try folder.write("cd.bin", Data(other))
                        #expect(try ProcessResult.run(openssl, arguments).status != 0, "\(place): accepted other bytes")
                        slices += 1
                        if let der = signature.derEntitlements {
                            #expect(DEREntitlements.layout(of: der.payload) == .current, "\(place): DER layout")
                            // [APPLICATION 16] { INTEGER 1, … }: the version follows the wrapper's length.
                            let lengthBytes = der.payload[1] & 0x80 == 0 ? 1 : 1 + Int(der.payload[1] & 0x7f)
                            #expect(
                                der.payload.first == 0x70 && Array(der.payload.dropFirst(1 + lengthBytes).prefix(3)) == [0x02, 0x01, 0x01])
                            let xml = try #require(signature.entitlements, "\(place): DER without XML")
                            #expect(try der.entitlements() == xml.entitlements(), "\(place)")
                            derBlobs += 1
                        }
                    }
                }
            }
        }
        // 34 slices re-signed; the apps and extensions (not frameworks or dylibs) carry DER entitlements.
        #expect(slices == 34)
        #expect(derBlobs > 0)
    }
}
