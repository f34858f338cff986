import Foundation
import TestSupport
import Testing

/// Issue 31, writes outside what the user named: an icon name a build controls never becomes a path.
@Suite(Fixtures.enabled) struct HostileIconNamesCLITests {
    /// An icon set named `../zzzz` (and a `CFBundleIconName` to match) wrote
    /// `OUT/../zzzz-180x180@3x~iphone.png` beside OUT; now the name is one safe file name in OUT,
    /// from an app folder and from an ipa alike.
    @Test func iconExtractKeepsACatalogNameThatIsAPathInsideTheOutputFolder() throws {
        try withTemporaryFolder { folder in
            let (app, ipa) = try HostileBuild.catalogNamedAsAPath(in: folder.path("in"))
            for (input, output) in [(app, "fromApp/out"), (ipa, "fromIPA/out")] {
                let parent = (folder.path(output) as NSString).deletingLastPathComponent
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                let result = try AdhocBuildBinary.run(["icon", "extract", input, "-o", folder.path(output)])
                #expect(result.status == 0, "\(result.stderrText)")
                let written = try HostileBuild.listing(parent).keys.sorted()
                #expect(
                    written == ["out", "out/___zzzz-180x180@2x~iphone.png", "out/___zzzz-180x180@3x~iphone.png", "out/icon.png"],
                    "\(input)")
            }
        }
    }

    /// An icon file whose name holds control characters is written under a name without them.
    @Test func iconExtractNamesAnIconFileWithoutItsControlCharacters() throws {
        try withTemporaryFolder { folder in
            let app = try HostileBuild.exampleApp(at: folder.path("in/ShoutOut.app"))
            try FileManager.default.moveItem(atPath: app + "/AppIcon60x60@3x.png", toPath: app + "/Icon\u{1B}[2J\u{7}.png")
            let result = try AdhocBuildBinary.run(["icon", "extract", app, "-o", folder.path("out")])
            #expect(result.status == 0, "\(result.stderrText)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("out")).sorted() == ["Icon_[2J_.png", "icon.png"])
        }
    }
}
