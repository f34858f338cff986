import Foundation
import IPAKit
import SystemSupport
import TestSupport
import Testing

/// Issue 31, messages: what packaging and icon extraction say about an output inside the app and a
/// file name that is not UTF-8.
@Suite struct PackagingMessagesTests {
    /// `package -o X.app/out.ipa` packed the app into an ipa inside the app, changing the input.
    @Test func anIpaInsideTheAppIsRefusedBeforeAnythingIsWritten() throws {
        try withTemporaryFolder { folder in
            let app = try IPAPackagerTests.makeApp(in: folder)
            let before = folder.snapshot()
            for output in [app + "/out.ipa", app + "/Frameworks/../out.ipa"] {
                let error = expectDiagnostic(FileProblem.self) { try IPAPackager().package(app, to: output) }
                #expect(
                    error?.description == "\(output): is inside the input \(app), which writing it would change; write it somewhere else")
            }
            #expect(folder.snapshot() == before)
        }
    }

    /// `icon extract A.app -o A.app/icons` wrote the icons into the app.
    @Test func iconsAreNotExtractedIntoTheApp() throws {
        try withTemporaryFolder { folder in
            let app = try IPAPackagerTests.makeApp(in: folder)
            let before = folder.snapshot()
            expectDiagnostic(FileProblem.self) { try AppIcons.extract(app, to: app + "/icons") }
            #expect(folder.snapshot() == before)
        }
    }

    /// A file whose name is not UTF-8 was listed with replacement characters, then not found:
    /// `ShoutOut.app/bad��.txt: cannot be read: No such file or directory`.
    @Test func aFileNameThatIsNotUTF8IsNamedWithItsBytes() throws {
        try withTemporaryFolder { folder in
            let app = try IPAPackagerTests.makeApp(in: folder)
            let name = Array((app + "/Base.lproj/bad").utf8) + [0xFF, 0xFE] + Array(".txt".utf8) + [0]
            let fd = name.withUnsafeBufferPointer {
                open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
            }
            try #require(fd >= 0)
            close(fd)
            let error = expectDiagnostic(FileProblem.self) { try IPAPackager().package(app, to: folder.path("out.ipa")) }
            #expect(
                error?.description
                    == "\(app)/Base.lproj: holds a file whose name is not UTF-8 ('bad\\xFF\\xFE.txt'); an ipa names its files in UTF-8, so rename it"
            )
            #expect(!FileManager.default.fileExists(atPath: folder.path("out.ipa")))
        }
    }
}
