import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// `icon extract` writes its files together (issue 31, half-done states): one that cannot be written
/// fails the command before any is, where the icons before it were written and the command failed.
@Suite struct IconExtractionTests {
    static var exampleApp: String { Fixtures.packageRoot.appendingPathComponent("examples/ShoutOut/ShoutOut.app").path }

    @Test func aFolderWhereAnIconGoesFailsBeforeAnyIconIsWritten() throws {
        try withTemporaryFolder { folder in
            try folder.create("icons/icon.png/notes.txt", Data("the user's".utf8))
            let before = folder.listing()
            #expect(throws: Diagnostic.io("is a folder, not a file", file: folder.path("icons/icon.png"))) {
                _ = try AppIcons.extract(Self.exampleApp, to: folder.path("icons"))
            }
            #expect(folder.listing() == before)
            try FileManager.default.removeItem(atPath: folder.path("icons/icon.png"))
            let written = try AppIcons.extract(Self.exampleApp, to: folder.path("icons"))
            #expect(written.map { ($0.path as NSString).lastPathComponent } == ["AppIcon60x60@3x.png", "icon.png"])
        }
    }
}
