import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

/// A loose dylib's embedded Info.plist changed, moved out of the slice or made zero-fill in one
/// slice: verify names that slice's slot 1 (and the code page that changed with it), not the other.
@Suite(Fixtures.enabled) struct EmbeddedInfoPlistTamperTests {
    static let dylib = "Frameworks/libswiftDarwin.dylib"

    /// The dylib's arm64 slice, as the fixture has it.
    static func arm64(_ bytes: Data) throws -> MachOSlice {
        try #require(try MachOFile(data: bytes).slices.first { "\($0.cpu)" == "arm64" })
    }

    /// The problems of the dylib's item and of the others, after `change` rewrote the dylib's bytes.
    static func problems(_ change: (Data, MachOSlice) throws -> Data) throws -> (dylib: [String], others: [String]) {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(EmbeddedInfoPlist.ipa, in: folder)
            let bytes = try app.data(dylib)
            try app.write(dylib, try change(bytes, try arm64(bytes)))
            let report = try CodeSealVerifier().verify(path: app.app)
            let item = try #require(report.items.first { $0.path.hasSuffix("/" + dylib) })
            let others = report.items.filter { $0.path != item.path }.flatMap(\.problems).map(\.description)
            return (item.problems.map { "\($0.file ?? ""): \($0.message)" }, others)
        }
    }

    /// `slice arm64: code page N of M (…) modified` for the page holding `offset` of the slice.
    static func page(_ slice: MachOSlice, _ offset: Int) throws -> String {
        let directory = try #require(try slice.embeddedSignature()?.codeDirectory)
        let page = offset / directory.pageSize, start = page * directory.pageSize
        return
            "libswiftDarwin.dylib: slice arm64: code page \(page) of \(directory.codeSlots.count) (bytes 0x\(String(start, radix: 16))..<0x\(String(start + directory.pageSize, radix: 16))) modified"
    }

    @Test func oneByteOfTheSectionInOneSlice() throws {
        var expected: [String] = []
        let (dylib, others) = try Self.problems { bytes, slice in
            let section = try #require(slice.infoPlistSection)
            let offset = Int(section.fileOffset) + 100
            var changed = bytes
            changed[Int(slice.fileOffset) + offset] ^= 0x20
            let now = try #require(try Self.arm64(changed).embeddedInfoPlist())
            #expect(now != (try slice.embeddedInfoPlist()))
            for directory in try #require(try slice.embeddedSignature()).codeDirectories {
                let sealed = try #require(directory.specialSlot(1))
                let type = directory.hashType
                expected.append(
                    "libswiftDarwin.dylib: slice arm64: Info.plist: modified (sealed \(EmbeddedInfoPlist.name(type)) "
                        + "\(EmbeddedInfoPlist.short(sealed)), now \(EmbeddedInfoPlist.short(Digest.hash(type, now))))")
            }
            expected.append(try Self.page(slice, offset))
            return changed
        }
        #expect(!expected.isEmpty)
        #expect(dylib.sorted() == expected.sorted())
        // The app seals the dylib's file, which changed.
        #expect(others.count == 1 && others.allSatisfy { $0.contains(": \(Self.dylib): modified") }, "\(others)")
    }

    @Test func aSectionRunningPastTheSliceIsAProblemNotACrash() throws {
        var expected: [String] = []
        let (dylib, _) = try Self.problems { bytes, slice in
            let header = try EmbeddedInfoPlist.sectionHeader(slice)
            let changed = EmbeddedInfoPlist.patch(bytes, slice, at: header + 40, UInt64(slice.size), width: 8)
            let broken = try Self.arm64(changed)
            expectCodeSign(.malformed) { _ = try broken.embeddedInfoPlist() }
            let section = try #require(broken.infoPlistSection)
            expected = [
                "libswiftDarwin.dylib: slice arm64: Info.plist: the __TEXT,__info_plist section (\(slice.size) bytes at offset "
                    + "\(section.fileOffset)) runs past the end of the slice (\(slice.size) bytes)",
                try Self.page(slice, header)
            ]
            return changed
        }
        #expect(dylib.sorted() == expected.sorted())
    }

    @Test func aZeroFillSectionHasNoBytesSoTheSealedOneIsMissing() throws {
        var expected: [String] = []
        let (dylib, _) = try Self.problems { bytes, slice in
            let header = try EmbeddedInfoPlist.sectionHeader(slice)
            let changed = EmbeddedInfoPlist.patch(bytes, slice, at: header + 64, 1, width: 1)  // S_ZEROFILL
            let zeroFill = try Self.arm64(changed)
            #expect(zeroFill.infoPlistSection?.isZeroFill == true)
            #expect(try zeroFill.embeddedInfoPlist() == nil)
            expected = try #require(try slice.embeddedSignature()).codeDirectories.map { directory in
                let sealed = try #require(directory.specialSlot(1))
                return "libswiftDarwin.dylib: slice arm64: Info.plist: missing (sealed \(EmbeddedInfoPlist.name(directory.hashType)) "
                    + "\(EmbeddedInfoPlist.short(sealed)))"
            }
            expected.append(try Self.page(slice, header))
            return changed
        }
        #expect(dylib.sorted() == expected.sorted())
    }
}
