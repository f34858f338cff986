import CodeSign
import Foundation
import TestSupport
import Testing

/// The Mach-O seeds the fuzz script makes from nothing are real signed binaries to this reader.
@Suite struct FuzzSeedTests {
    @Test func madeSeedsReadAsSignedBinariesWithMatchingHashes() throws {
        let python = try #require(ProcessResult.which("python3"))
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/fuzz_codesign_seeds.py").path
        try withTemporaryFolder { folder in
            let run = try ProcessResult.run(python, [script, "made", folder.url.path])
            try #require(run.status == 0, "\(run.stderrText)")
            for name in ["macho-made-thin", "macho-made-fat32", "macho-made-fat64"] {
                let file = try MachOFile(contentsOf: folder.path(name))
                #expect(file.fatHeader?.is64 == (name == "macho-made-fat64" ? true : name == "macho-made-fat32" ? false : nil))
                let slice = try #require(file.slices.first)
                let signature = try #require(try slice.embeddedSignature())
                let directory = try #require(signature.codeDirectory)
                #expect(directory.identifier == "com.example.fuzz")
                #expect(
                    CodeHashing.pageHashes(slice.bytes, limit: Int(directory.codeLimit), pageSize: 4096, type: .sha256)
                        == directory.codeSlots)
                #expect(directory.specialSlot(2) == Digest.sha256(try #require(signature.blob(SignatureSlot.requirements))))
                #expect(directory.specialSlot(7) == Digest.sha256(try #require(signature.blob(SignatureSlot.derEntitlements))))
                #expect(signature.requirements?.description == "designated => identifier \"com.example\"\n")
                #expect(try signature.derEntitlements?.entitlements() == signature.entitlements?.entitlements())
                #expect(signature.bytes() == Array(try #require(slice.signatureBytes)))
            }
        }
    }
}
