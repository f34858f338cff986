import CodeSign
import Foundation
import PlistKit
import Testing

/// Rebuilds one fixture bundle's signature pieces with the generators signing uses, from the bundle's
/// files and the parameters read from the original, chaining each builder's output into the next:
/// the CodeResources and the requirement, entitlements and DER blobs feed the special slots of the
/// CodeDirectories built from each slice's code.
struct FixtureRederivation {
    /// The rule generation each fixture's Xcode wrote, from SOURCES.md's Xcode version.
    static let generations: [String: ResourceRuleGeneration] = [
        "app_info_embedded_enterprise-appex.ipa": .xcode12,  // Xcode 12.3
        "app_info_ipad_appstore-cgbi-icons.ipa": .xcode7,  // Xcode 7.3
        "app_info_iphone_dev-100devices.ipa": .xcode7,  // Xcode 7.3
        "fastlane_very-capable-app_dev-xcode9.ipa": .xcode9,  // Xcode 9.2
        "ipa-server_Test_dev-xcode12.ipa": .xcode12,  // Xcode 12.5
        "ipa_analyzer_ios-simple-objc_dev.ipa": .xcode7,  // Xcode 7.3.1
        "isign_SimpleSaucyApp_libswift-dylibs_swiftsupport.ipa": .xcode6,  // Xcode 6.3
        "iosdevicemanager_Permissions_dev_unsorted-agility_armv7+arm64.ipa": .xcode12,  // Xcode 11.3
        "bitbar_BitBarSampleApp_react-native_der-entitlements.ipa": .xcode12  // Xcode 14.1
    ]

    let code: FixtureCode
    let file: MachOFile
    /// The first slice's signature: the blobs all slices share (requirements, entitlements, CMS signer).
    let signature: EmbeddedSignature

    init(_ code: FixtureCode) throws {
        self.code = code
        file = try MachOFile(data: code.bytes)
        signature = try #require(try file.slices.first?.embeddedSignature(), "\(code)")
    }

    /// Every entry of the bundle, as the CodeResources generator takes them.
    func resources() throws -> [BundleResource] {
        try code.archive.entries.filter { !$0.isDirectory && $0.name.hasPrefix(code.bundle) }.map { entry in
            let path = String(entry.name.dropFirst(code.bundle.count))
            let bytes = try code.archive.data(entry)
            if entry.isSymlink { return BundleResource(path: path, content: .symlink(target: String(decoding: bytes, as: UTF8.self))) }
            return BundleResource.file(path, bytes: bytes)
        }
    }

    func codeResources() throws -> Data {
        let generation = try #require(FixtureRederivation.generations[code.ipa], "no generation for \(code.ipa)")
        let builder = CodeResourcesBuilder(generation: generation, hashTypes: signature.codeDirectories.map(\.hashType))
        return try builder.build(try resources(), executable: String(code.entry.dropFirst(code.bundle.count))).data()
    }

    /// The designated requirement of the signer, as a requirement set. Where the original set also
    /// holds requirements of other kinds (Xcode 6 wrote a library requirement naming the embedded
    /// Swift dylibs), that is the original set once its designated requirement is proven equal.
    func requirements() throws -> [UInt8] {
        let directory = try #require(signature.codeDirectory)
        let cms = try CodeSignatureCMS(cms: try #require(signature.signature).cms, content: directory.bytes())
        let rebuilt = try DesignatedRequirement.requirementSet(identifier: directory.identifier, signature: cms)
        let original = try #require(signature.requirements, "\(code): no requirement set")
        guard original.requirements.count > 1 else { return rebuilt.bytes() }
        #expect(rebuilt.designated == original.designated, "\(code): designated requirement")
        return try #require(signature.blob(SignatureSlot.requirements))
    }

    /// The XML entitlements blob rebuilt from the entitlements the original holds.
    func entitlements() throws -> [UInt8]? {
        guard let original = signature.entitlements else { return nil }
        return try EntitlementsBlob.xml(try original.entitlements()).bytes()
    }

    /// The DER blob encoded from the XML entitlements (where the original has one), in the
    /// original's layout (Xcode 12.5's bare SET, or the wrapped layout Xcode writes since 13).
    func derEntitlements() throws -> [UInt8]? {
        guard let original = signature.derEntitlements, let xml = signature.entitlements else { return nil }
        let layout = try #require(DEREntitlements.layout(of: original.payload), "\(code): DER layout")
        return try EntitlementsBlob.der(try xml.entitlements(), layout: layout).bytes()
    }

    /// Every CodeDirectory of every slice, rebuilt, beside the original.
    func codeDirectories() throws -> [(name: String, rebuilt: [UInt8], original: [UInt8])] {
        // Code of its own (a loose dylib) seals the Info.plist in its __info_plist section and no CodeResources.
        let bundled = code.isBundleExecutable || code.bundle.hasSuffix(".framework/")
        let codeResources = bundled ? Array(try codeResources()) : nil
        let requirements = try requirements(), entitlements = try entitlements(), derEntitlements = try derEntitlements()
        var result: [(String, [UInt8], [UInt8])] = []
        for slice in file.slices {
            let slots = SpecialSlotContents(
                infoPlist: bundled ? code.bundleFile("Info.plist").map(Array.init) : try slice.embeddedInfoPlist(),
                requirements: requirements, codeResources: codeResources,
                application: signature.blob(SignatureSlot.application).map { Array($0.dropFirst(8)) },
                entitlements: entitlements, derEntitlements: derEntitlements)
            let sliceSignature = try #require(try slice.embeddedSignature())
            let stored = [SignatureSlot.codeDirectory] + sliceSignature.superBlob.entries.map(\.type).filter { $0 >= 0x1000 && $0 < 0x1005 }
            for (directory, slot) in zip(sliceSignature.codeDirectories, stored) {
                var parameters = CodeDirectoryParameters(of: directory)
                // Read from the slice, not the original directory: the code limit and __TEXT.
                parameters.codeLimit = CodeDirectoryParameters.codeLimit(of: slice)
                if directory.version >= CodeDirectory.Version.execSegment {
                    let text = try #require(CodeDirectoryParameters.executableSegment(of: slice))
                    (parameters.execSegmentBase, parameters.execSegmentLimit) = (text.base, text.limit)
                }
                let rebuilt = try CodeDirectoryBuilder.build(code: slice.bytes, specialSlots: slots, parameters: parameters)
                result.append(
                    ("\(code) \(slice.cpu) 0x\(String(slot, radix: 16))", rebuilt.bytes(), try #require(sliceSignature.blob(slot))))
            }
        }
        return result
    }

    /// Where two byte strings first differ, for a failure message.
    static func difference(_ lhs: [UInt8], _ rhs: [UInt8]) -> String {
        guard let at = zip(lhs, rhs).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset else {
            return lhs.count == rhs.count ? "equal" : "lengths \(lhs.count) and \(rhs.count)"
        }
        return "first difference at byte \(at) of \(lhs.count)/\(rhs.count): \(lhs[at]) vs \(rhs[at])"
    }
}
