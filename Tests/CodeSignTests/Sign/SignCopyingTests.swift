import CodeSign
import Foundation
import SystemSupport
import TestSupport
import Testing

/// Signing a copy (the executables' code written while the resources are copied) gives the bytes
/// signing the same folder in place gives, loose dylibs included.
@Suite struct SignCopyingTests {
    /// The example app (an executable, a framework, an icon) with a loose dylib (a copy of the
    /// framework's binary), a resource and a localization.
    static func makeApp(in folder: TemporaryFolder) throws -> String {
        let app = folder.path("ShoutOut.app")
        let example = Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path
        try FileManager.default.copyItem(atPath: example, toPath: app)
        try FileManager.default.copyItem(
            atPath: app + "/Frameworks/ShoutKit.framework/ShoutKit", toPath: app + "/Frameworks/libshout.dylib")
        for inner in ["Assets", "en.lproj"] {
            try FileManager.default.createDirectory(atPath: app + "/" + inner, withIntermediateDirectories: true)
        }
        _ = try folder.write("ShoutOut.app/Assets/a.bin", Data(repeating: 7, count: 70_000))
        _ = try folder.write("ShoutOut.app/en.lproj/Localizable.strings", Data("\"a\" = \"b\";".utf8))
        return app
    }

    /// Every file under `root`, by its path relative to it, with its bytes.
    static func files(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        while let relative = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative))
            }
        }
        return files
    }

    @Test func aSignedCopyHoldsTheBytesOfTheFolderSignedInPlaceAndItsLooseDylib() throws {
        try withTemporaryFolder { folder in
            let app = try Self.makeApp(in: folder)
            let options = BundleSigningOptions(identity: nil)
            let inPlace = folder.path("InPlace.app")
            try FileManager.default.copyItem(atPath: app, toPath: inPlace)
            _ = try BundleSigner.sign(bundle: inPlace, options: options)

            let copy = folder.path("Copy.app")
            let report = try BundleSigner.sign(copying: app, to: copy, options: options)
            #expect(
                report.items.map(\.path) == [
                    "Copy.app/Frameworks/ShoutKit.framework", "Copy.app/Frameworks/libshout.dylib", "Copy.app"
                ])
            let signed = try Self.files(copy)
            #expect(signed.keys.sorted() == (try Self.files(inPlace)).keys.sorted())
            #expect(signed["Frameworks/libshout.dylib"] != nil)
            #expect(signed == (try Self.files(inPlace)))
            // Nothing left beside the copy but the folders made here.
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [
                    "Copy.app", "InPlace.app", "ShoutOut.app"
                ])
            let verified = try CodeSealVerifier().verify(path: copy)
            #expect(verified.items.map(\.status) == [.adhoc, .adhoc, .adhoc])
            #expect(verified.problems.map(\.description) == [])
        }
    }
}
