import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Every Mach-O in every real fixture: the model reads each blob and writes the same bytes back,
/// and every hash the CodeDirectories hold is recomputed with libcrypto.
@Suite(Fixtures.enabled) struct FixtureSignatureTests {
    /// Counts of what was proven, so a fixture set that silently shrank fails.
    struct Tally {
        var binaries = 0, slices = 0, superBlobs = 0, codeDirectories = 0, requirementSets = 0, entitlements = 0,
            derEntitlements = 0, derFromXML = 0, cms = 0, codePages = 0, specialSlots = 0
    }

    @Test func everyBlobOfEveryFixtureWritesBackByteForByte() throws {
        var tally = Tally()
        for code in try FixtureCode.all() {
            tally.binaries += 1
            let file = try MachOFile(data: code.bytes)
            for slice in file.slices {
                tally.slices += 1
                let stored = try #require(slice.signatureBytes, "\(code) slice \(slice.cpu) is unsigned")
                let signature = try #require(try slice.embeddedSignature())
                let written = signature.bytes()
                #expect(written[...] == stored.prefix(written.count), "\(code) \(slice.cpu): super blob")
                #expect(stored.dropFirst(written.count).allSatisfy { $0 == 0 }, "\(code) \(slice.cpu): padding after the super blob")
                tally.superBlobs += 1
                for entry in signature.superBlob.entries {
                    let rewritten: [UInt8]
                    switch entry.magic {
                    case 0xfade_0c02: rewritten = try CodeDirectory(bytes: entry.bytes).bytes(); tally.codeDirectories += 1
                    case 0xfade_0c01: rewritten = try RequirementSet(bytes: entry.bytes).bytes(); tally.requirementSets += 1
                    case 0xfade_7171: rewritten = try EntitlementsBlob(bytes: entry.bytes).bytes(); tally.entitlements += 1
                    case 0xfade_7172: rewritten = try EntitlementsBlob(bytes: entry.bytes).bytes(); tally.derEntitlements += 1
                    case 0xfade_0b01: rewritten = try CMSBlob(bytes: entry.bytes).bytes(); tally.cms += 1
                    default: Issue.record("\(code): unexpected blob 0x\(String(entry.magic, radix: 16))"); continue
                    }
                    #expect(rewritten == entry.bytes, "\(code) \(slice.cpu): blob in slot 0x\(String(entry.type, radix: 16))")
                }
                // DER entitlements re-derived from the XML ones, as the signer makes them.
                if let der = signature.derEntitlements, let xml = signature.entitlements {
                    let layout = try #require(DEREntitlements.layout(of: der.payload), "\(code): DER layout")
                    #expect(
                        try EntitlementsBlob.der(xml.entitlements(), layout: layout).bytes() == der.bytes(),
                        "\(code): DER entitlements from XML")
                    #expect(try der.entitlements() == xml.entitlements(), "\(code): DER and XML entitlements agree")
                    tally.derFromXML += 1
                }
            }
        }
        // Nine ipas: 19 binaries (Demo has an appex, SimpleSaucyApp 9 loose Swift dylibs). Slices: 3
        // binaries fat with armv7 + arm64 and a SHA-1 and a SHA-256 directory each, the Xcode 9 one dual
        // too, Permissions armv7 + armv7s + arm64 dual, SimpleSaucyApp's 10 binaries armv7 + arm64 with
        // SHA-1 only, the Xcode 12 and 14 ones SHA-256 only.
        #expect(tally.binaries == 19)
        #expect(tally.slices == 34)
        #expect(tally.superBlobs == 34)
        #expect(tally.codeDirectories == 44)
        #expect(tally.requirementSets == 34)
        #expect(tally.entitlements == 34)
        #expect(tally.derEntitlements == 4)
        #expect(tally.derFromXML == 4)
        #expect(tally.cms == 36)
    }

    @Test func everyCodePageAndSpecialSlotHashMatchesTheBundle() throws {
        var pages = 0, slots = 0
        for code in try FixtureCode.all() {
            let file = try MachOFile(data: code.bytes)
            for slice in file.slices {
                let signature = try #require(try slice.embeddedSignature())
                let location = try #require(slice.codeSignature)
                for directory in signature.codeDirectories {
                    let place = "\(code) \(slice.cpu) \(directory.hashType)"
                    #expect(directory.effectiveCodeLimit == UInt64(location.dataOffset), "\(place): code limit")
                    let hashes = CodeHashing.pageHashes(
                        slice.bytes, limit: Int(directory.effectiveCodeLimit), pageSize: directory.pageSize, type: directory.hashType)
                    #expect(hashes == directory.codeSlots, "\(place): code pages")
                    pages += hashes.count
                    // A loose dylib binds the Info.plist embedded in its slice, not its app's file, and no CodeResources.
                    let loose = EmbeddedInfoPlist.isLoose(code)
                    let info = loose ? try slice.embeddedInfoPlist().map { Data($0) } : code.bundleFile("Info.plist")
                    let codeResources = loose ? nil : code.bundleFile("_CodeSignature/CodeResources")
                    let expected: [Int: [UInt8]?] = [
                        1: info.map { Digest.hash(directory.hashType, $0) },
                        2: signature.blob(SignatureSlot.requirements).map { Digest.hash(directory.hashType, $0) },
                        3: codeResources.map { Digest.hash(directory.hashType, $0) },
                        // Xcode 7.3 put a blob wrapper in the application slot; its hash covers the payload only.
                        4: signature.blob(SignatureSlot.application).map { Digest.hash(directory.hashType, Array($0.dropFirst(8))) },
                        5: signature.blob(SignatureSlot.entitlements).map { Digest.hash(directory.hashType, $0) },
                        7: signature.blob(SignatureSlot.derEntitlements).map { Digest.hash(directory.hashType, $0) }
                    ]
                    for slot in 1...directory.specialSlots.count {
                        let stored = try #require(directory.specialSlot(slot))
                        let zero = [UInt8](repeating: 0, count: directory.hashType.size)
                        let want = expected[slot].flatMap { $0 } ?? zero
                        #expect(stored == want, "\(place): special slot \(slot)")
                        if stored != zero { slots += 1 }
                    }
                }
            }
        }
        #expect(pages == 3955)
        // Info.plist, requirements, CodeResources and entitlements in every directory of bundle code
        // (26), DER in 4 and the application slot in the iPad app's 4; Info.plist (embedded),
        // requirements and entitlements in the loose dylibs' 18.
        #expect(slots == 26 * 4 + 4 + 4 + 18 * 3)
    }
}
