import CodeSign
import Foundation
import PlistKit
import SystemSupport
import TestSupport
import Testing

/// The CodeResources generator on a tiny bundle made here: a resource, a localization, a symbolic link,
/// a nested bundle with its own seal, junk the rules omit, the executable and the old signature folder.
struct CodeResourcesBuilderTests {
    /// Lays out `Tiny.app` in `folder`; returns its path.
    static func makeBundle(in folder: TemporaryFolder) throws -> String {
        let app = folder.path("Tiny.app")
        let files: [(String, String)] = [
            ("Tiny", "not really a Mach-O"), ("Info.plist", "<plist/>"), ("PkgInfo", "APPL????"), ("Assets.car", "assets"),
            ("en.lproj/Localizable.strings", "\"a\" = \"b\";"), ("Base.lproj/Main.storyboardc/Info.plist", "base"),
            ("PlugIns/Ext.appex/Ext", "extension code"), ("PlugIns/Ext.appex/Info.plist", "<plist>ext</plist>"),
            ("PlugIns/Ext.appex/_CodeSignature/CodeResources", "nested seal"), (".DS_Store", "junk"),
            ("_CodeSignature/CodeResources", "the old seal"), ("embedded.mobileprovision", "profile")
        ]
        for (path, text) in files {
            let url = URL(fileURLWithPath: app + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try FileManager.default.createSymbolicLink(atPath: app + "/Current.car", withDestinationPath: "Assets.car")
        try FileManager.default.createSymbolicLink(atPath: app + "/Localized", withDestinationPath: "en.lproj")
        return app
    }

    @Test func sealsEveryFileTheRulesSealWithItsHashesAndTheLinkByTarget() throws {
        let folder = try TemporaryFolder()
        let app = try Self.makeBundle(in: folder)
        let resources = try CodeResourcesBuilder(generation: .xcode12, hashTypes: [.sha256]).build(
            try BundleResource.scan(folder: app), executable: "Tiny")
        #expect(resources.files2["Current.car"] == ResourceSeal(symlink: "Assets.car"))
        #expect(resources.files["Current.car"] == nil)
        // A link to a folder is sealed as a link; the walk does not follow it.
        #expect(resources.files2["Localized"] == ResourceSeal(symlink: "en.lproj"))
        #expect(!resources.files2.keys.contains { $0.hasPrefix("Localized/") })
        #expect(resources.files2["Info.plist"] == nil && resources.files["Info.plist"] != nil)
        #expect(resources.files2["PkgInfo"] == nil && resources.files2[".DS_Store"] == nil)
        #expect(resources.files2["Tiny"] == nil && resources.files2["_CodeSignature/CodeResources"] == nil)
        #expect(resources.files2["en.lproj/Localizable.strings"]?.optional == true)
        #expect(resources.files2["Base.lproj/Main.storyboardc/Info.plist"]?.optional == false)
        let nested = ["PlugIns/Ext.appex/Ext", "PlugIns/Ext.appex/Info.plist", "PlugIns/Ext.appex/_CodeSignature/CodeResources"]
        for path in nested {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: app + "/" + path))
            #expect(resources.files2[path] == ResourceSeal(hash2: Digest.sha256(bytes)), "\(path)")
        }
        // The rules the file carries decide exactly the files it seals.
        let written = try CodeResources(data: try resources.data())
        #expect(written.files == resources.files && written.files2 == resources.files2)
        #expect(try written.data() == resources.data())
        let matcher = try ResourceRuleMatcher(written.rules2)
        for resource in try BundleResource.scan(folder: app) where resource.path != "Tiny" && !resource.path.hasPrefix("_CodeSignature/") {
            let sealed = matcher.verdict(for: resource.path) != .omitted
            #expect((written.files2[resource.path] != nil) == sealed, "\(resource.path)")
        }
    }

    @Test func olderGenerationsSealSHA1BesideSHA256InFiles2() throws {
        let folder = try TemporaryFolder()
        let app = try Self.makeBundle(in: folder)
        let resources = try CodeResourcesBuilder(generation: .xcode9, hashTypes: [.sha1, .sha256]).build(
            try BundleResource.scan(folder: app), executable: "Tiny")
        let bytes = Data("assets".utf8)
        #expect(resources.files2["Assets.car"] == ResourceSeal(hash: Digest.sha1(bytes), hash2: Digest.sha256(bytes)))
        #expect(resources.files["Assets.car"] == ResourceSeal(hash: Digest.sha1(bytes)))
        // Xcode 7 and 9 rules2 say "^" at weight 20 over the nested rules: the appex is sealed file by file.
        #expect(resources.files2["PlugIns/Ext.appex/Ext"] != nil)
        #expect(resources.rules2.contains { $0.pattern == "^Base\\.lproj/" })
        #expect(!ResourceRuleGeneration.xcode7.rules2.contains { $0.pattern == "^Base\\.lproj/" })
    }

    @Test func anUnsupportedHashTypeIsAnErrorAndNoGenerationNestsIOSCode() throws {
        let builder = CodeResourcesBuilder(generation: .xcode12, hashTypes: [.sha384])
        expectCodeSign(.unsupported) { try builder.build([.file("a", bytes: [1])], executable: nil) }
        // A top-level file is nested under ^[^/]+$ only where "^" does not outweigh it; never in these generations.
        for generation in ResourceRuleGeneration.allCases {
            let matcher = try ResourceRuleMatcher(generation.rules2)
            #expect(matcher.verdict(for: "Frameworks/A.framework/A") != .nested, "\(generation)")
        }
    }

    /// Python's plistlib reads the generated file and hashlib hashes the bundle's files: the seals agree.
    @Test func plistlibAndHashlibAgreeWithTheGeneratedSeal() throws {
        let python = try #require(ProcessResult.which("python3"), "python3 is needed for the plistlib oracle")
        let folder = try TemporaryFolder()
        let app = try Self.makeBundle(in: folder)
        let resources = try CodeResourcesBuilder(generation: .xcode7, hashTypes: [.sha1, .sha256]).build(
            try BundleResource.scan(folder: app), executable: "Tiny")
        let sealPath = folder.path("CodeResources")
        try resources.data().write(to: URL(fileURLWithPath: sealPath))
        let script = """
            import hashlib, os, plistlib, sys
            seal = plistlib.load(open(sys.argv[1], 'rb'))
            app = sys.argv[2]
            for key in ('files', 'files2'):
                for path, entry in sorted(seal[key].items()):
                    full = os.path.join(app, path)
                    if isinstance(entry, bytes):
                        entry = {'hash': entry}
                    if 'symlink' in entry:
                        print(key, path, 'link', os.readlink(full) == entry['symlink'])
                        continue
                    data = open(full, 'rb').read()
                    ok = entry.get('hash', hashlib.sha1(data).digest()) == hashlib.sha1(data).digest()
                    ok = ok and entry.get('hash2', hashlib.sha256(data).digest()) == hashlib.sha256(data).digest()
                    print(key, path, 'file', ok, entry.get('optional', False))
            """
        let result = try ProcessResult.run(python, ["-c", script, sealPath, app])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == resources.files.count + resources.files2.count)
        #expect(lines.allSatisfy { $0.contains(" True") }, "\(lines)")
        #expect(lines.contains("files2 Current.car link True"))
        #expect(lines.contains("files en.lproj/Localizable.strings file True True"))
    }
}
