import Foundation
import SystemSupport
import TestSupport
import Testing

/// Folder listings by `d_type` (``FileIO/listing(of:folder:)``) and the removal of a tree built on
/// them (``FileIO/removeTree(_:)``): every kind said, links never followed.
@Suite struct FolderListingTests {
    @Test func aListingNamesEachEntryWithItsKindAndLeavesOutTheDots() throws {
        try withTemporaryFolder { folder in
            _ = try folder.write("file.txt", "x")
            try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: "sub")
            let descriptor = open(folder.url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            defer { close(descriptor) }
            let listing = try #require(try FileIO.listing(of: descriptor, folder: folder.url.path))
            let kinds = Dictionary(uniqueKeysWithValues: listing.map { ($0.name, $0.type) })
            #expect(kinds == ["file.txt": UInt8(DT_REG), "sub": UInt8(DT_DIR), "link": UInt8(DT_LNK)])
            // Listed again through the same descriptor, from its start.
            #expect(try FileIO.listing(of: descriptor, folder: folder.url.path)?.count == 3)
        }
    }

    @Test func aFileIsNotAFolderToList() throws {
        try withTemporaryFolder { folder in
            let file = try folder.write("file.txt", "x")
            let descriptor = open(file, O_RDONLY | O_CLOEXEC)
            defer { close(descriptor) }
            #expect(try FileIO.listing(of: descriptor, folder: file) == nil)
        }
    }

    @Test func removingATreeRemovesEveryKindAndFollowsNoLink() throws {
        try withTemporaryFolder { folder in
            let kept = try folder.write("kept.txt", "stays")
            let tree = folder.path("tree")
            try FileManager.default.createDirectory(atPath: tree + "/a/b/c", withIntermediateDirectories: true)
            _ = try folder.write("tree/a/b/c/deep.txt", "x")
            _ = try folder.write("tree/top.txt", "")
            try FileManager.default.createSymbolicLink(atPath: tree + "/a/out", withDestinationPath: folder.url.path)
            try FileManager.default.createSymbolicLink(atPath: tree + "/a/file-link", withDestinationPath: kept)
            // A name that is not UTF-8 is removed all the same.
            let odd = tree + "/a/b/" + "caf"
            let made = open(Array(odd.utf8CString.dropLast()) + [-23, 0], O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            #expect(made >= 0)
            close(made)
            #expect(FileIO.removeTree(tree))
            #expect(!FileManager.default.fileExists(atPath: tree))
            #expect(try String(contentsOfFile: kept, encoding: .utf8) == "stays")
            #expect(FileManager.default.fileExists(atPath: folder.url.path))
        }
    }

    @Test func removingAFileOrNothingSucceeds() throws {
        try withTemporaryFolder { folder in
            let file = try folder.write("file.txt", "x")
            #expect(FileIO.removeTree(file))
            #expect(!FileManager.default.fileExists(atPath: file))
            #expect(FileIO.removeTree(folder.path("missing")))
        }
    }
}
