import CodeSign
import Foundation
import TestSupport
import Testing

/// Seals the fixtures do not show, made by rewriting an unpacked fixture's CodeResources: sealed
/// symbolic links, an old (version 1) seal, and an app inside an `.xcarchive`.
@Suite(Fixtures.enabled) struct CodeSealLayoutTests {
    static let test = "ipa-server_Test_dev-xcode12.ipa"

    /// Writes `resources` as the app's CodeResources; returns the problem the changed file itself causes (slot 3).
    static func rewrite(_ app: TamperedApp, _ resources: CodeResources) throws -> String {
        let old = try app.data("_CodeSignature/CodeResources")
        let new = try resources.data()
        try app.write("_CodeSignature/CodeResources", new)
        return "Test.app: _CodeSignature/CodeResources: \(CodeSealTamperTests.modified(old, new))"
    }

    @Test func symbolicLinksAreSealedByTheirTarget() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            try FileManager.default.createSymbolicLink(atPath: app.path("Link.car"), withDestinationPath: "Assets.car")
            #expect(try app.problems() == ["Test.app: Link.car: added, not sealed"])

            var resources = try CodeResources(data: try app.data("_CodeSignature/CodeResources"))
            resources.files2["Link.car"] = ResourceSeal(symlink: "Assets.car")
            let slot = try Self.rewrite(app, resources)
            #expect(try app.problems() == [slot])

            try FileManager.default.removeItem(atPath: app.path("Link.car"))
            try FileManager.default.createSymbolicLink(atPath: app.path("Link.car"), withDestinationPath: "Info.plist")
            #expect(
                try app.problems() == [slot, "Test.app: Link.car: symbolic link modified (sealed to 'Assets.car', now to 'Info.plist')"])
        }
    }

    @Test func anOldSealIsCheckedWithFilesAndRules() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            var resources = try CodeResources(data: try app.data("_CodeSignature/CodeResources"))
            resources.files2 = [:]
            resources.rules2 = []
            let slot = try Self.rewrite(app, resources)
            let report = try CodeSealVerifier().verify(path: app.app)
            #expect(report.problems.map(\.description) == [slot])
            #expect(report.items.last?.sealedFiles.keys.contains("Info.plist") == true)  // rules (version 1) seal it

            let old = try app.data("PkgInfo")
            try app.flipByte("PkgInfo", at: 0)
            let sha1 = { (data: Data) in Digest.sha1(data).map { String(format: "%02x", $0) }.joined().prefix(8) + "…" }
            #expect(
                try app.problems() == [
                    slot, "Test.app: PkgInfo: modified (sealed SHA-1 \(sha1(old)), now \(sha1(try app.data("PkgInfo"))))"
                ])
        }
    }

    @Test func theAppOfAnXcarchiveIsFoundAndNamedFromTheArchive() throws {
        try withTemporaryFolder { folder in
            let app = try TamperedApp(Self.test, in: folder)
            let archive = folder.path("My.xcarchive")
            try FileManager.default.createDirectory(atPath: archive + "/Products/Applications", withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: app.app, toPath: archive + "/Products/Applications/Test.app")
            try FileManager.default.removeItem(atPath: archive + "/Products/Applications/Test.app/Assets.car")
            let report = try CodeSealVerifier().verify(path: archive)
            #expect(report.problems.map(\.description) == ["My.xcarchive/Products/Applications/Test.app: Assets.car: missing"])
        }
    }
}
