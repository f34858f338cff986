import CodeSign
import Foundation
import TestSupport
import Testing

/// The generators re-seal a changed app that the existing verifier then accepts: a fixture app gets a
/// symbolic link and a resource bundle, its CodeResources is generated again, and its CodeDirectory is
/// rebuilt with the new slot 3 and put back in place of the old one (the CMS, not checked without a
/// trust check, is left as it was: signing it is issue 18's).
@Suite(Fixtures.enabled) struct ResealedFixtureTests {
    @Test func aRegeneratedSealOverAddedFilesVerifies() throws {
        let folder = try TemporaryFolder()
        let app = try TamperedApp("app_info_embedded_enterprise-appex.ipa", in: folder)
        try FileManager.default.createDirectory(atPath: app.path("Extras.bundle/en.lproj"), withIntermediateDirectories: true)
        try app.write("Extras.bundle/Info.plist", Data("<plist/>".utf8))
        try app.write("Extras.bundle/en.lproj/Extras.strings", Data("\"a\" = \"b\";".utf8))
        try FileManager.default.createSymbolicLink(
            atPath: app.path("Launch.nib"), withDestinationPath: "Base.lproj/Main.storyboardc/Info.plist")
        let before = try app.problems()
        #expect(before.count == 3, "before re-sealing, the two files and the link are added, not sealed: \(before)")

        let executable = "Demo"
        let binary = Array(try app.data(executable))
        let slice = try #require(try MachOFile(bytes: binary).slices.first)
        let signature = try #require(try slice.embeddedSignature())
        let original = try #require(signature.codeDirectory)
        let seal = try CodeResourcesBuilder(generation: .xcode12, hashTypes: [original.hashType]).build(
            try BundleResource.scan(folder: app.app), executable: executable
        ).data()
        try app.write("_CodeSignature/CodeResources", seal)
        let slots = SpecialSlotContents(
            infoPlist: Array(try app.data("Info.plist")), requirements: signature.blob(SignatureSlot.requirements),
            codeResources: Array(seal), entitlements: signature.blob(SignatureSlot.entitlements),
            derEntitlements: signature.blob(SignatureSlot.derEntitlements))
        let directory = try CodeDirectoryBuilder.build(
            code: slice.bytes, specialSlots: slots, parameters: CodeDirectoryParameters(of: original))
        #expect(directory.specialSlot(3) != original.specialSlot(3))
        var blob = signature.superBlob
        let index = try #require(blob.entries.firstIndex { $0.type == SignatureSlot.codeDirectory })
        blob.entries[index].bytes = directory.bytes()
        let rewritten = blob.bytes()
        #expect(rewritten.count == signature.bytes().count)
        var patched = binary
        let start = Int(try #require(slice.codeSignature).dataOffset)
        patched.replaceSubrange(start..<start + rewritten.count, with: rewritten)
        try app.write(executable, Data(patched))

        #expect(try app.problems() == [])
    }
}
