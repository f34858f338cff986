import CodeSign
import Foundation
import PlistKit
import TestSupport
import Testing

/// Every fixture ipa re-signed by ``BundleSigner`` with the test identities: it verifies, keeps what
/// Apple's signer chose where that is known, and each CodeDirectory is the one rebuilt from the bytes
/// written.
@Suite(Fixtures.enabled) struct ResignFixtureTests {
    static let xcode12 = ["ipa-server_Test_dev-xcode12.ipa", "app_info_embedded_enterprise-appex.ipa"]

    @Test func everyResignedFixtureVerifiesSignedByTheTestTeam() throws {
        try withTemporaryFolder { folder in
            let fixtures = try ResignedFixture.all(in: folder)
            #expect(fixtures.count == 27)
            for fixture in fixtures {
                let result = try CodeSignatureVerifier().verify(path: fixture.app)
                #expect(result.report.isValid, "\(fixture): \(result.report.problems.map(\.description))")
                let before = try CodeSealVerifier().verify(path: fixture.original)
                #expect(result.report.items.map(\.path) == before.items.map(\.path), "\(fixture)")
                let team = try #require(fixture.identity.certificate.organizationalUnit)
                #expect(team == "ABCDE12345")
                for item in result.report.items {
                    #expect(item.status == .signed, "\(fixture) \(item.path)")
                    #expect(item.teamID == team, "\(fixture) \(item.path)")
                }
                #expect(fixture.report.items.count == before.items.count, "\(fixture)")
                #expect(fixture.report.teamID == team)
            }
        }
    }

    /// Apple's CodeResources for Xcode 12's rules is written again the same, but for the files the signer
    /// rewrote: each bundle's embedded.mobileprovision, and a nested bundle's executable and CodeResources.
    @Test(arguments: xcode12) func theXcode12CodeResourcesIsUnchangedButForWhatTheSignerRewrote(ipa: String) throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            let fixture = try ResignedFixture(ipa, identity: identity, made: made, in: folder)
            let nested = ResignedFixture.nestedBundles(fixture.original).map { String($0.dropFirst(fixture.original.count + 1)) + "/" }
            for bundle in [""] + nested {
                let file = bundle + "_CodeSignature/CodeResources"
                let old = try #require(try PropertyList(data: Self.read(fixture.original + "/" + file)).value.dictionaryValue)
                let new = try #require(try PropertyList(data: Self.read(fixture.app + "/" + file)).value.dictionaryValue)
                #expect(new["rules"] == old["rules"] && new["rules2"] == old["rules2"], "\(ipa) \(file): rules")
                var rewritten: Set<String> = []
                var kept = [old, new]
                for key in ["files", "files2"] {
                    let oldFiles = try #require(old[key]?.dictionaryValue), newFiles = try #require(new[key]?.dictionaryValue)
                    #expect(Set(oldFiles.keys) == Set(newFiles.keys), "\(ipa) \(file): \(key) names other files")
                    for path in oldFiles.keys
                    where try Self.read(fixture.original + "/" + bundle + path) != Self.read(fixture.app + "/" + bundle + path) {
                        rewritten.insert(path)
                    }
                    for index in kept.indices {
                        var files = try #require(kept[index][key]?.dictionaryValue)
                        for path in rewritten { files[path] = nil }
                        kept[index][key] = .dictionary(files)
                    }
                }
                var expected: Set<String> = ["embedded.mobileprovision"]
                for inner in nested where inner.hasPrefix(bundle) && inner != bundle {
                    let relative = String(inner.dropFirst(bundle.count))
                    let executable = try #require(try ResignedFixture.info(fixture.app + "/" + inner)["CFBundleExecutable"]?.stringValue)
                    expected.formUnion([
                        relative + "embedded.mobileprovision", relative + executable, relative + "_CodeSignature/CodeResources"
                    ])
                }
                #expect(rewritten == expected, "\(ipa) \(file): the files the signer changed")
                #expect(kept[1] == kept[0], "\(ipa) \(file): the seal of the files the signer left alone")
                // Byte for byte: Apple's file with the rewritten files' SHA-1 and SHA-256 put in.
                var text = String(decoding: try Self.read(fixture.original + "/" + file), as: UTF8.self)
                for path in rewritten {
                    let was = try Self.read(fixture.original + "/" + bundle + path), now = try Self.read(fixture.app + "/" + bundle + path)
                    for type in [HashType.sha1, .sha256] {
                        let old = Data(Digest.hash(type, was)).base64EncodedString(),
                            new = Data(Digest.hash(type, now)).base64EncodedString()
                        #expect(text.components(separatedBy: old).count == 2, "\(ipa) \(file): \(path) \(type) sealed once")
                        text = text.replacingOccurrences(of: old, with: new)
                    }
                }
                #expect(Data(text.utf8) == (try Self.read(fixture.app + "/" + file)), "\(ipa) \(file): not Apple's bytes")
            }
        }
    }

    static func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func everyNewCodeDirectoryIsTheOneRebuiltFromTheNewBytes() throws {
        try withTemporaryFolder { folder in
            var checked = 0
            for fixture in try ResignedFixture.all(in: folder) {
                for relative in try ResignedFixture.machOFiles(fixture.app) {
                    let path = fixture.app + "/" + relative
                    let slots = try Self.specialSlots(of: path)
                    for slice in try MachOFile(contentsOf: path).slices {
                        let place = "\(fixture) \(relative) \(slice.cpu)"
                        let signature = try #require(try slice.embeddedSignature(), "\(place)")
                        var contents = slots
                        // Code outside a bundle binds the Info.plist embedded in the slice, if any.
                        if contents.infoPlist == nil { contents.infoPlist = try slice.embeddedInfoPlist() }
                        contents.requirements = signature.blob(SignatureSlot.requirements)
                        contents.entitlements = signature.blob(SignatureSlot.entitlements)
                        contents.derEntitlements = signature.blob(SignatureSlot.derEntitlements)
                        let location = try #require(slice.codeSignature)
                        let text = try #require(CodeDirectoryParameters.executableSegment(of: slice))
                        for directory in signature.codeDirectories {
                            #expect(UInt64(directory.codeLimit) == UInt64(location.dataOffset), "\(place): code limit")
                            #expect(directory.execSegmentBase == text.base && directory.execSegmentLimit == text.limit, "\(place)")
                            #expect(directory.version == CodeDirectory.Version.execSegment, "\(place)")
                            let rebuilt = try CodeDirectoryBuilder.build(
                                code: Array(slice.bytes.prefix(Int(location.dataOffset))), specialSlots: contents,
                                parameters: CodeDirectoryParameters(of: directory))
                            #expect(
                                rebuilt.bytes() == directory.bytes(),
                                "\(place) \(directory.hashType): \(FixtureRederivation.difference(rebuilt.bytes(), directory.bytes()))")
                            checked += 1
                        }
                    }
                }
            }
            #expect(checked >= 30)
        }
    }

    /// Info.plist and CodeResources of the bundle whose main executable `path` is, else nothing (a loose
    /// dylib, whose slot 1 binds each slice's embedded Info.plist instead).
    static func specialSlots(of path: String) throws -> SpecialSlotContents {
        let bundle = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        guard FileManager.default.fileExists(atPath: bundle + "/Info.plist"),
            try ResignedFixture.info(bundle)["CFBundleExecutable"]?.stringValue == name
        else { return SpecialSlotContents() }
        let read = { (file: String) in Array(try Data(contentsOf: URL(fileURLWithPath: bundle + "/" + file))) }
        return SpecialSlotContents(infoPlist: try read("Info.plist"), codeResources: try read("_CodeSignature/CodeResources"))
    }

    /// The hash types, identifier and execSeg flags are those of the original signature; where the
    /// original predates execSeg (0x20400), the flags are Apple's rule: mainBinary for an executable,
    /// allowUnsigned too where get-task-allow is true.
    @Test func theParametersAreTheOriginalsWhereAppleChoseThem() throws {
        try withTemporaryFolder { folder in
            let made = try TestIdentities.make(in: folder)
            let identity = try SigningIdentity(p12: made.rsa, password: .file(made.passwordFile))
            for ipa in ResignedFixture.names() {
                let fixture = try ResignedFixture(ipa, identity: identity, made: made, in: folder)
                for relative in try ResignedFixture.machOFiles(fixture.original) {
                    let modes = try [fixture.original, fixture.app].map {
                        try FileManager.default.attributesOfItem(atPath: $0 + "/" + relative)[.posixPermissions] as? Int
                    }
                    #expect(modes[1] == modes[0], "\(ipa) \(relative): permissions")
                    let old = try MachOFile(contentsOf: fixture.original + "/" + relative)
                    let new = try MachOFile(contentsOf: fixture.app + "/" + relative)
                    try #require(old.slices.count == new.slices.count)
                    for (before, after) in zip(old.slices, new.slices) {
                        let place = "\(ipa) \(relative) \(after.cpu)"
                        let was = try #require(try before.embeddedSignature(), "\(place)")
                        let now = try #require(try after.embeddedSignature(), "\(place)")
                        // Xcode 9.2's codesign wrote SHA-1 beside SHA-256 for iOS 11.2; today's writes SHA-256 alone
                        // from iOS 11 on, as the signer does.
                        if ipa.hasPrefix("isign_") {
                            // Xcode 6.3's codesign wrote SHA-1 alone; today's writes SHA-1 and SHA-256 below iOS 11.
                            #expect(was.codeDirectories.map(\.hashType) == [.sha1], "\(place): hash types")
                            #expect(now.codeDirectories.map(\.hashType) == [.sha1, .sha256], "\(place): hash types")
                        } else {
                            withKnownIssue("Xcode 9's codesign added SHA-1 for iOS 11.2") {
                                #expect(now.codeDirectories.map(\.hashType) == was.codeDirectories.map(\.hashType), "\(place): hash types")
                            } when: {
                                ipa == "fastlane_very-capable-app_dev-xcode9.ipa"
                            }
                        }
                        if ipa == "fastlane_very-capable-app_dev-xcode9.ipa" { #expect(now.codeDirectories.map(\.hashType) == [.sha256]) }
                        #expect(now.codeDirectory?.identifier == was.codeDirectory?.identifier, "\(place): identifier")
                        let taskAllow = try now.entitlements?.entitlements().dictionaryValue?["get-task-allow"]?.boolValue ?? false
                        let oldTaskAllow = try was.entitlements?.entitlements().dictionaryValue?["get-task-allow"]?.boolValue ?? false
                        #expect(taskAllow == oldTaskAllow, "\(place): get-task-allow")
                        var rule: UInt64 = 0
                        if after.fileType == 2 {
                            rule = CodeDirectory.ExecSegmentFlag.mainBinary | (taskAllow ? CodeDirectory.ExecSegmentFlag.allowUnsigned : 0)
                        }
                        let oldByType = Dictionary(was.codeDirectories.map { ($0.hashType, $0) }) { first, _ in first }
                        for directory in now.codeDirectories {
                            let original = try #require(oldByType[directory.hashType] ?? was.codeDirectory)
                            #expect(directory.execSegmentFlags == rule, "\(place)")
                            if original.version >= CodeDirectory.Version.execSegment {
                                #expect(directory.execSegmentFlags == original.execSegmentFlags, "\(place): Apple's execSeg flags")
                            }
                        }
                    }
                }
            }
        }
    }
}
