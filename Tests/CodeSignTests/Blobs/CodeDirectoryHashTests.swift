import CodeSign
import Foundation
import TestSupport
import Testing

/// ``CodeDirectory/cdhash()`` digests the directory in pieces, its code slots where they are: the
/// result is the digest of the blob as written (``CodeDirectory/bytes()``), of the blob as stored in
/// every fixture, and the cdhash Apple's signer put in each fixture's CMS.
@Suite struct CodeDirectoryHashTests {
    /// The cdhash computed from the whole blob.
    static func wholeBlobCdhash(_ directory: CodeDirectory) -> [UInt8] {
        Array(Digest.hash(directory.hashType, directory.bytes()).prefix(20))
    }

    /// Directories with every optional field of their version, including special slots held at
    /// another size than the hash type's (written as held, which moves what follows the code slots).
    @Test(arguments: [
        CodeDirectory.Version.base, CodeDirectory.Version.scatter, CodeDirectory.Version.teamID, CodeDirectory.Version.codeLimit64,
        CodeDirectory.Version.execSegment, CodeDirectory.Version.runtime, CodeDirectory.Version.linkage
    ])
    func matchesTheWholeBlob(version: UInt32) throws {
        for type in [HashType.sha1, .sha256] {
            var directory = CodeDirectory(
                version: version, flags: 0x2, hashType: type, identifier: "com.example.pieces", teamID: "ABCDE12345",
                codeLimit: 3 * 4096 + 100, specialSlots: (1...7).map { [UInt8](repeating: UInt8($0), count: type.size) },
                codeSlots: (0..<4).map { [UInt8](repeating: UInt8(0x40 + $0), count: type.size) })
            directory.preEncryptHashes = (0..<4).map { [UInt8](repeating: UInt8(0x80 + $0), count: type.size) }
            directory.linkage = Array("linkage".utf8)
            directory.execSegmentLimit = 0x4000
            directory.runtime = 0xE0000
            #expect(directory.cdhash() == Self.wholeBlobCdhash(directory), "\(type) 0x\(String(version, radix: 16))")
            if version == CodeDirectory.Version.linkage { #expect(try CodeDirectory(bytes: directory.bytes()) == directory) }
            directory.specialSlots[2] = [1, 2, 3]
            #expect(directory.cdhash() == Self.wholeBlobCdhash(directory), "\(type) 0x\(String(version, radix: 16)), odd slot")
            directory.teamID = nil
            directory.codeSlots = []
            #expect(directory.cdhash() == Self.wholeBlobCdhash(directory), "\(type) 0x\(String(version, radix: 16)), no code")
        }
    }

    @Test(Fixtures.enabled) func matchesTheStoredBlobAndTheSignersCdhashesInEveryFixture() throws {
        var directories = 0, signedByCMS = 0
        for code in try FixtureCode.all() {
            for slice in try MachOFile(data: code.bytes).slices {
                guard let signature = try slice.embeddedSignature() else { continue }
                for entry in signature.superBlob.entries where entry.magic == 0xfade_0c02 {
                    let directory = try CodeDirectory(bytes: entry.bytes)
                    let stored = Array(Digest.hash(directory.hashType, entry.bytes).prefix(20))
                    #expect(directory.cdhash() == stored, "\(code) \(slice.cpu): slot 0x\(String(entry.type, radix: 16))")
                    directories += 1
                }
                // The cdhashes plist Apple's signer wrote lists every directory's, in signature order.
                if let cms = signature.signature, !cms.isEmpty, let primary = signature.blob(0),
                    let listed = try CodeSignatureCMS(cms: cms.cms, content: primary).cdhashesPlist
                {
                    #expect(listed == signature.codeDirectories.map { $0.cdhash() }, "\(code) \(slice.cpu)")
                    signedByCMS += 1
                }
            }
        }
        #expect(directories > 20)
        #expect(signedByCMS > 5)
    }
}
