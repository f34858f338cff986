import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

/// Hand-made Mach-O files: the layout the reader reports, and hostile variants that must be one-line errors.
@Suite struct MachOReaderTests {
    /// A little-endian 64-bit arm64 executable: __TEXT with one section, LC_BUILD_VERSION (iOS 14.0),
    /// LC_ENCRYPTION_INFO_64 (cryptid 1) and LC_CODE_SIGNATURE over `signature`.
    static func thin(signature: [UInt8] = superBlob()) -> [UInt8] {
        var commands: [UInt8] = []
        func le32(_ v: UInt32, into out: inout [UInt8]) { out += withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        func le64(_ v: UInt64, into out: inout [UInt8]) { out += withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        func name(_ text: String, into out: inout [UInt8]) { out += Array(text.utf8) + Array(repeating: 0, count: 16 - text.utf8.count) }
        let headerAndCommands = 32 + 152 + 24 + 24 + 16
        let signatureOffset = UInt32((headerAndCommands + 15) / 16 * 16)
        // LC_SEGMENT_64 __TEXT with one section
        le32(0x19, into: &commands); le32(152, into: &commands); name("__TEXT", into: &commands)
        le64(0x1_0000_0000, into: &commands); le64(0x4000, into: &commands); le64(0, into: &commands);
        le64(UInt64(signatureOffset), into: &commands)
        le32(5, into: &commands); le32(5, into: &commands); le32(1, into: &commands); le32(0, into: &commands)
        name("__text", into: &commands); name("__TEXT", into: &commands)
        le64(0x1_0000_0100, into: &commands); le64(16, into: &commands); le32(0x100, into: &commands)
        commands += Array(repeating: 0, count: 28)
        // LC_BUILD_VERSION: platform 2 (iOS), minos 14.0, sdk 14.5, no tools
        le32(0x32, into: &commands); le32(24, into: &commands); le32(2, into: &commands)
        le32(0x000E_0000, into: &commands); le32(0x000E_0500, into: &commands); le32(0, into: &commands)
        // LC_ENCRYPTION_INFO_64
        le32(0x2c, into: &commands); le32(24, into: &commands); le32(0x4000, into: &commands); le32(0x1000, into: &commands)
        le32(1, into: &commands); le32(0, into: &commands)
        // LC_CODE_SIGNATURE
        le32(0x1d, into: &commands); le32(16, into: &commands); le32(signatureOffset, into: &commands)
        le32(UInt32(signature.count), into: &commands)
        var file: [UInt8] = []
        le32(0xfeed_facf, into: &file); le32(0x0100_000c, into: &file); le32(0, into: &file); le32(2, into: &file)
        le32(4, into: &file); le32(UInt32(commands.count), into: &file); le32(0x0020_0085, into: &file); le32(0, into: &file)
        file += commands
        file += Array(repeating: 0, count: Int(signatureOffset) - file.count)
        return file + signature
    }

    /// A super blob with an empty requirement set and an ad-hoc (empty) CMS wrapper.
    static func superBlob() -> [UInt8] {
        SuperBlob(
            magic: 0xfade_0cc0,
            entries: [
                .init(type: SignatureSlot.requirements, bytes: RequirementSet([]).bytes()),
                .init(type: SignatureSlot.signature, bytes: CMSBlob(cms: []).bytes())
            ]
        ).bytes()
    }

    static func fat(_ slices: [[UInt8]], wide: Bool) -> [UInt8] {
        var offset: UInt64 = 0x4000
        var architectures: [FatHeader.Architecture] = []
        // arm64, arm64 v8 and arm64e: one architecture per slice, as lipo requires.
        for (index, slice) in slices.enumerated() {
            architectures.append(
                .init(cpu: CPUType(type: 0x0100_000c, subtype: Int32(index)), offset: offset, size: UInt64(slice.count), alignment: 14))
            offset += (UInt64(slice.count) + 0x3fff) / 0x4000 * 0x4000
        }
        var file = FatHeader(is64: wide, architectures: architectures).bytes()
        for (slice, arch) in zip(slices, architectures) {
            file += Array(repeating: 0, count: Int(arch.offset) - file.count)
            file += slice
        }
        return file
    }

    @Test func thinSliceReportsSegmentsMinimumOSEncryptionAndSignature() throws {
        let file = try MachOFile(bytes: Self.thin())
        #expect(file.fatHeader == nil)
        let slice = try #require(file.slices.first)
        #expect(slice.is64 && slice.cpu.description == "arm64")
        #expect(slice.segments.map(\.name) == ["__TEXT"])
        #expect(slice.segments[0].sections.map(\.name) == ["__text"])
        #expect(slice.minimumOS.map { "\($0.platformName) \($0.version) \($0.sdk)" } == "ios 14.0 14.5")
        #expect(slice.encryption?.isEncrypted == true)
        let signature = try #require(try slice.embeddedSignature())
        #expect(signature.signature?.isEmpty == true)
        #expect(signature.requirements?.requirements.isEmpty == true)
        #expect(signature.bytes() == Self.superBlob())
    }

    @Test(arguments: [false, true]) func fatFilesOfBothWidthsReadEverySlice(wide: Bool) throws {
        let file = try MachOFile(bytes: Self.fat([Self.thin(), Self.thin()], wide: wide))
        #expect(file.fatHeader?.is64 == wide)
        #expect(file.slices.count == 2)
        #expect(file.slices.map(\.fileOffset) == [0x4000, 0x8000])
        #expect(try file.slices.allSatisfy { try $0.embeddedSignature() != nil })
    }

    /// Each hostile variant and the start of the error it must give.
    static func hostile() -> [(String, [UInt8], String)] {
        let good = thin()
        var cases: [(String, [UInt8], String)] = []
        cases.append(("empty", [], "byte 0x0: the Mach-O header"))
        cases.append(("truncated header", Array(good.prefix(20)), "byte 0x0: the Mach-O header"))
        var bigCommands = good
        bigCommands[20] = 0xff; bigCommands[21] = 0xff
        cases.append(("load commands past the end", bigCommands, "byte 0x20: the load commands"))
        var zeroSize = good
        zeroSize[36] = 0
        cases.append(("load command of size 0", zeroSize, "byte 0x20: load command 0 (0x19) has size 0"))
        var farSegment = good
        farSegment[32 + 48 + 3] = 0x7f
        cases.append(("segment past the end", farSegment, "byte 0x20: segment __TEXT"))
        var farSignature = good
        farSignature[32 + 152 + 24 + 24 + 8 + 3] = 0x7f
        cases.append(("signature past the end", farSignature, "byte 0xe8: LC_CODE_SIGNATURE"))
        var badMagic = good
        badMagic[Int(good.count - superBlob().count)] = 0
        cases.append(("signature magic", badMagic, "slice arm64: byte 0x100: embedded signature has magic"))
        var fat = fat([good], wide: false)
        fat[8 + 8 + 2] = 0x7f
        cases.append(("fat slice outside the file", fat, "byte 0x8: slice arm64"))
        var manyArchitectures = fat
        manyArchitectures[4] = 0x7f
        cases.append(("fat count", manyArchitectures, "byte 0x4: universal binary claims"))
        // Issue 31: three entries for the same bytes, and two entries for one architecture.
        var overlapping = Self.fat([good, good, good], wide: false)
        for entry in 1...2 { overlapping.replaceSubrange(8 + entry * 20 + 8..<8 + entry * 20 + 12, with: [0, 0, 0x40, 0]) }
        cases.append(("fat slices overlapping", overlapping, "byte 0x1c: slice arm64 (bytes 16384..<16688) overlaps slice arm64"))
        var twice = Self.fat([good, good], wide: false)
        twice[8 + 20 + 7] = 0
        cases.append(("fat architecture twice", twice, "byte 0x1c: slice arm64 appears twice in the universal binary"))
        return cases
    }

    @Test func hostileFilesAreOneLineErrorsNamingTheByte() {
        for (name, bytes, expected) in Self.hostile() {
            FuzzSeeds.export(Data(bytes), harness: "macho", name: name)
            do {
                let file = try MachOFile(bytes: bytes)
                for slice in file.slices { _ = try slice.embeddedSignature() }
                Issue.record("\(name): accepted")
            } catch let error as Diagnostic where error.is(CodeSignProblem.self) {
                #expect(error.description.hasPrefix(expected), "\(name): \(error.description)")
                #expect(error.code == .codeSign(.malformed), "\(name)")
                #expect(!error.description.contains("\n"), "\(name)")
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
    }

    @Test func hostileSignatureBlobsAreErrorsNotTraps() {
        let directory = CodeDirectory(
            version: 0x20400, flags: 0, hashType: .sha256, identifier: "com.example", teamID: "TEAM", codeLimit: 100,
            specialSlots: [[UInt8](repeating: 1, count: 32)], codeSlots: [[UInt8](repeating: 2, count: 32)])
        let good = directory.bytes()
        #expect((try? CodeDirectory(bytes: good)) == directory)
        var variants: [(String, [UInt8])] = [("truncated", Array(good.dropLast(10)))]
        var hugeSlots = good
        hugeSlots[28] = 0x7f
        variants.append(("code slots", hugeSlots))
        var badType = good
        badType[37] = 9
        variants.append(("hash type", badType))
        var identifierOutside = good
        identifierOutside[22] = 0x7f
        variants.append(("identifier offset", identifierOutside))
        var noNul = good
        noNul[95] = 0x41
        noNul.removeSubrange(96..<good.count)
        noNul[7] = UInt8(noNul.count)
        noNul[6] = 0
        variants.append(("identifier without NUL", noNul))
        for (name, bytes) in variants {
            FuzzSeeds.export(Data(bytes), harness: "codesign-blob", name: "codedirectory " + name)
            expectCodeSign(.malformed, "\(name)") { try CodeDirectory(bytes: bytes) }
        }
    }
}
