import Foundation
import SystemSupport
import TestSupport
import Testing

/// `FileIO.kind(of:)` tells folders from everything else, follows links, and says when nothing is there.
@Suite struct FileKindTests {
    @Test func foldersFilesLinksAndNothing() throws {
        try withTemporaryFolder { folder in
            let file = try folder.create("Sub/file.txt", Data("x".utf8))
            try FileManager.default.createSymbolicLink(atPath: folder.path("link-to-sub"), withDestinationPath: "Sub")
            try FileManager.default.createSymbolicLink(atPath: folder.path("link-to-file"), withDestinationPath: "Sub/file.txt")
            try FileManager.default.createSymbolicLink(atPath: folder.path("dangling"), withDestinationPath: "nowhere")
            #expect(FileIO.kind(of: folder.path("Sub")) == .folder)
            #expect(FileIO.kind(of: file) == .file)
            #expect(FileIO.kind(of: folder.path("link-to-sub")) == .folder)
            #expect(FileIO.kind(of: folder.path("link-to-file")) == .file)
            #expect(FileIO.kind(of: folder.path("dangling")) == nil)
            #expect(FileIO.kind(of: folder.path("missing")) == nil)
        }
    }
}
