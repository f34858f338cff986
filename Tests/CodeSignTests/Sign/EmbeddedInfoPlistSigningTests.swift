import CodeSign
import Foundation
import IPAKit
import TestSupport
import Testing

/// Signing binds a loose dylib's embedded Info.plist in special slot 1 of every CodeDirectory of
/// every slice, as Apple's signer does; an Info.plist the caller gives (a bundle's) wins.
@Suite(Fixtures.enabled) struct EmbeddedInfoPlistSigningTests {
    /// Slot 1 of every CodeDirectory of every slice of the Mach-O at `path`, with the slice's section.
    static func slotsAndSections(_ path: String) throws -> [(place: String, type: HashType, slot: [UInt8]?, section: [UInt8]?)] {
        try MachOFile(contentsOf: path).slices.flatMap { slice in
            let section = try slice.embeddedInfoPlist()
            return try #require(try slice.embeddedSignature(), "\(path) \(slice.cpu)").codeDirectories.map {
                ("\(path) \(slice.cpu) \($0.hashType)", $0.hashType, $0.specialSlot(1), section)
            }
        }
    }

    @Test func theResignedAppsDylibsBindTheirSections() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            let fixture = try ResignedFixture(EmbeddedInfoPlist.ipa, identity: identity, made: made, in: folder)
            var checked = 0
            for dylib in EmbeddedInfoPlist.dylibs {
                let before = try MachOFile(contentsOf: fixture.original + "/" + dylib).slices.map { try $0.embeddedInfoPlist() }
                let now = try Self.slotsAndSections(fixture.app + "/" + dylib)
                #expect(Set(now.map(\.section)) == Set(before), "\(dylib): the sections are kept")
                for (place, type, slot, section) in now {
                    let bytes = try #require(section, "\(place)")
                    #expect(slot == Digest.hash(type, bytes), "\(place): slot 1")
                    checked += 1
                }
            }
            // 9 dylibs × 2 slices × (SHA-1 and SHA-256: they run on iOS 8).
            #expect(checked == 36)
            let report = try CodeSealVerifier().verify(path: fixture.app)
            for item in report.items where item.path.hasSuffix(".dylib") {
                #expect(item.problems.map(\.description) == [], "\(item.path)")
            }
        }
    }

    /// A dylib signed on its own binds its section; given an Info.plist, it binds that one instead.
    @Test func machOSignerBindsTheSectionUnlessGivenAnInfoPlist() throws {
        try withTemporaryFolder { folder in
            let archive = try ZipArchiveReader(path: Fixtures.url("ipa", EmbeddedInfoPlist.ipa).path)
            let path = try folder.write(
                "libswiftDarwin.dylib", try archive.data(named: "Payload/SimpleSaucyApp.app/Frameworks/libswiftDarwin.dylib"))
            let given = [UInt8]("<plist><dict/></plist>".utf8)
            for infoPlist in [nil, given] {
                let parameters = CodeSigningParameters(
                    identifier: "com.apple.dt.runtime.swiftDarwin", teamID: nil, hashTypes: [.sha1, .sha256], execSegmentFlags: 0,
                    specialSlots: SpecialSlotContents(infoPlist: infoPlist), identity: nil, signingTime: Date())
                let output = folder.path("signed.dylib")
                _ = try MachOSigner.sign(file: path, to: output) { _ in parameters }
                let slots = try Self.slotsAndSections(output)
                #expect(slots.count == 4)
                for (place, type, slot, section) in slots {
                    let bound = try #require(infoPlist ?? section, "\(place)")
                    #expect(slot == Digest.hash(type, bound), "\(place): slot 1")
                }
            }
        }
    }

    @Test func aSectionRunningPastTheSliceIsRefused() throws {
        try withTemporaryFolder { folder in
            let archive = try ZipArchiveReader(path: Fixtures.url("ipa", EmbeddedInfoPlist.ipa).path)
            let bytes = try archive.data(named: "Payload/SimpleSaucyApp.app/Frameworks/libswiftDarwin.dylib")
            let slice = try #require(try MachOFile(data: bytes).slices.last)
            let header = try EmbeddedInfoPlist.sectionHeader(slice)
            let path = try folder.write(
                "broken.dylib", EmbeddedInfoPlist.patch(bytes, slice, at: header + 40, UInt64(slice.size), width: 8))
            let parameters = CodeSigningParameters(
                identifier: "x", teamID: nil, hashTypes: [.sha256], execSegmentFlags: 0, specialSlots: SpecialSlotContents(),
                identity: nil, signingTime: Date())
            let output = folder.path("signed.dylib")
            #expect {
                _ = try MachOSigner.sign(file: path, to: output) { _ in parameters }
            } throws: { error in
                "\(error)".contains("__TEXT,__info_plist section") && "\(error)".contains("slice \(slice.cpu)")
            }
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }
}
