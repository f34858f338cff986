import CodeSign
import Foundation
import TestSupport
import Testing

/// Issue 30: every slice of a fat binary is checked on its own, and a problem in one slice names it.
/// The Permissions fixture is Apple-signed with three slices (armv7, armv7s, arm64); each test breaks
/// its second slice only, in a copy, and `codesign verify` must name `slice armv7s` and nothing else.
@Suite(Fixtures.enabled) struct SliceTamperTests {
    static let ipa = "iosdevicemanager_Permissions_dev_unsorted-agility_armv7+arm64.ipa"
    static let executable = "Permissions"

    /// The second slice, where its CMS sits in the file, and the file's bytes.
    static func secondSlice(_ app: TamperedApp) throws -> (slice: MachOSlice, cms: Range<Int>, bytes: Data) {
        let bytes = try app.data(executable)
        let file = try MachOFile(data: bytes)
        try #require(file.slices.map { "\($0.cpu)" } == ["armv7", "armv7s", "arm64"])
        let slice = file.slices[1]
        let cms = try #require(try slice.embeddedSignature()?.signature).cms
        let sliceStart = Int(slice.fileOffset)
        let sliceBytes = bytes[sliceStart..<sliceStart + slice.size]
        let found = try #require(sliceBytes.firstRange(of: cms), "the CMS is in its slice")
        return (slice, found, bytes)
    }

    /// The seal problems and the install problems `codesign verify` reports for the copy, as lines.
    static func verify(_ app: TamperedApp) throws -> (seal: [String], install: [String]) {
        let (seal, install) = try problems(app)
        return (seal.map(\.description), install.map(\.description))
    }

    /// The seal problems and the install problems `codesign verify` reports for the copy.
    static func problems(_ app: TamperedApp) throws -> (seal: [CodeSealProblem], install: [CodeSealProblem]) {
        let report = try CodeSignatureVerifier().verify(path: app.app).report
        return (report.problems, report.installProblems)
    }

    @Test func aFlippedByteInTheSecondSlicesCMSSignatureIsNamedForThatSlice() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.ipa, in: folder)
            #expect(try Self.verify(app).seal == [])
            let (_, cms, _) = try Self.secondSlice(app)
            // Apple's CMS ends in the RSA signature value, then the end-of-contents octets of its
            // indefinite lengths; 40 bytes before the end is inside the signature.
            try app.flipByte(Self.executable, at: cms.upperBound - 40)
            #expect(try Self.problems(app).seal.map(\.kind) == [.signatureUntrusted])
            let seal = try Self.verify(app).seal
            #expect(seal.count == 1, "\(seal)")
            #expect(
                seal.first?.hasPrefix("Permissions.app: slice armv7s: CMS signature does not verify over the CodeDirectory") == true,
                "\(seal)")
        }
    }

    @Test func aChangedSignerCertificateInTheSecondSliceBreaksItsDesignatedRequirement() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.ipa, in: folder)
            let (_, cms, bytes) = try Self.secondSlice(app)
            // The signer's common name inside the certificate the second slice's CMS carries.
            let name = Array("iPhone Developer: Karl Krukow".utf8)
            let at = try #require(bytes[cms].firstRange(of: name), "the signer's name is in the CMS")
            // "Karl" becomes "Carl": still a valid UTF8String, now another name.
            var changed = bytes
            changed[at.lowerBound + name.count - 4] = UInt8(ascii: "C")
            try app.write(Self.executable, changed)
            let kinds = try Self.problems(app)
            #expect(kinds.seal.map(\.kind) == [.requirementNotSatisfied])
            #expect(kinds.install.contains { $0.kind == .certificateNotInProfile && $0.message.hasPrefix("slice armv7s: signer ") })
            let (seal, install) = try Self.verify(app)
            #expect(seal.count == 1, "\(seal)")
            #expect(
                seal.first?.hasPrefix("Permissions.app: slice armv7s: does not satisfy its designated requirement: ") == true, "\(seal)")
            // The changed certificate is no longer one the profile lists either.
            #expect(install.contains { $0.hasPrefix("Permissions.app: slice armv7s: signer ") }, "\(install)")
            #expect(!install.contains { $0.contains("slice armv7: signer \"") || $0.contains("slice arm64: signer \"") }, "\(install)")
        }
    }

    @Test func aChangedCodePageOfTheSecondSliceIsNamedForThatSlice() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.ipa, in: folder)
            let (slice, _, _) = try Self.secondSlice(app)
            let directory = try #require(try slice.embeddedSignature()?.codeDirectory)
            // A byte in the second page of the slice's code.
            try app.flipByte(Self.executable, at: Int(slice.fileOffset) + directory.pageSize + 100)
            #expect(try Self.problems(app).seal.map(\.kind) == [.pageModified])
            let seal = try Self.verify(app).seal
            let range = "bytes 0x\(String(directory.pageSize, radix: 16))..<0x\(String(2 * directory.pageSize, radix: 16))"
            #expect(
                seal == ["Permissions.app: Permissions: slice armv7s: code page 1 of \(directory.codeSlots.count) (\(range)) modified"],
                "\(seal)")
        }
    }
}
